/**
 * Preset mode (contract section 13, "Assets"): when the operator names transform sets, only those are
 * computed; any other transform is refused with 400 naming the sets. A preset is asked for with its
 * parameters, as any transform (`?w=200&h=200&fit=cover&format=webp`): the same asset URLs work with and
 * without preset mode. Parameters are compared in their normalized form (`fit` counts only with both
 * dimensions, `q` not for PNG), in any order. Pure.
 */
import { apiError, isApiError, type ApiError } from '../http/errors';
import { normalizeTransformQuery, parseTransformQuery, type TransformQuery } from './transform-query';

export type TransformPreset = { name: string; parameters: string; query: TransformQuery };

const NAME = /^[a-z0-9][a-z0-9_-]{0,63}$/;

/** The presets of the configuration, each checked as an asset URL's query would be. Throws on a bad one. */
export const parseTransformPresets = (configured: Record<string, string>): TransformPreset[] =>
  Object.entries(configured).map(([name, parameters]) => {
    if (!NAME.test(name)) throw new Error(`Transform preset name ${JSON.stringify(name)}: lowercase letters, digits, - and _ only.`);
    if (typeof parameters !== 'string') throw new Error(`Transform preset ${name}: its parameters must be a query string.`);
    let query: TransformQuery | null;
    try {
      query = parseTransformQuery(new URLSearchParams(parameters));
    } catch (error) {
      const detail = isApiError(error) ? error.errors.map((problem) => problem.detail).join(' ') : String(error);
      throw new Error(`Transform preset ${name} (${parameters}): ${detail}`, { cause: error });
    }
    if (query === null) throw new Error(`Transform preset ${name} asks for no transform.`);
    return { name, parameters, query: normalizeTransformQuery(query) };
  });

const same = (a: TransformQuery, b: TransformQuery) =>
  a.width === b.width && a.height === b.height && a.fit === b.fit && a.format === b.format && a.quality === b.quality;

/** The preset a normalized transform is, or null. */
export const presetOf = (presets: readonly TransformPreset[], asked: TransformQuery): TransformPreset | null =>
  presets.find((preset) => same(preset.query, asked)) ?? null;

/** 400 for a transform that is no preset, naming every preset and its parameters. */
export const notAPreset = (presets: readonly TransformPreset[], parameter: string): ApiError =>
  apiError(
    400,
    `This server computes only its transform presets: ${presets.map((preset) => `${preset.name} (${preset.parameters})`).join(', ')}; ask for one of them with its parameters, or for the original without parameters.`,
    { source: { parameter }, reason: 'transform_not_a_preset' },
  );
