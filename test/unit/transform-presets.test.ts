/**
 * Preset mode's transform sets (assets/presets.ts): checked like an asset URL's query, matched in their
 * normalized form, and named in the refusal of anything else.
 */
import { notAPreset, parseTransformPresets, presetOf } from '../../src/plugins/public-api/server/src/assets/presets';
import { normalizeTransformQuery, parseTransformQuery } from '../../src/plugins/public-api/server/src/assets/transform-query';

const asked = (query: string) => normalizeTransformQuery(parseTransformQuery(new URLSearchParams(query))!);

const presets = parseTransformPresets({ thumb: 'w=200&h=200&fit=cover&format=webp', wide: 'w=1600' });

test('a transform is a preset when its normalized parameters are, in any order', () => {
  expect(presetOf(presets, asked('format=webp&fit=cover&h=200&w=200'))?.name).toBe('thumb');
  expect(presetOf(presets, asked('w=1600'))?.name).toBe('wide');
  // fit counts only with both dimensions: it does not make another transform of `wide`.
  expect(presetOf(presets, asked('w=1600&fit=contain'))?.name).toBe('wide');
  expect(presetOf(presets, asked('w=1601'))).toBeNull();
  expect(presetOf(presets, asked('w=200&h=200&format=webp'))).toBeNull();
  expect(presetOf(presets, asked('w=1600&format=avif'))).toBeNull();
});

test('the refusal is a 400 naming every preset with its parameters', () => {
  const error = notAPreset(presets, 'w');
  expect(error.status).toBe(400);
  expect(error.errors).toEqual([
    expect.objectContaining({
      status: '400',
      code: 'bad_request',
      source: { parameter: 'w' },
      meta: { reason: 'transform_not_a_preset' },
      detail: expect.stringContaining('thumb (w=200&h=200&fit=cover&format=webp), wide (w=1600)'),
    }),
  ]);
});

test('a bad preset is refused with what is wrong with it', () => {
  expect(() => parseTransformPresets({ thumb: 'w=0' })).toThrow(/Transform preset thumb \(w=0\): w must be an integer from 1 to 4096/);
  expect(() => parseTransformPresets({ thumb: 'size=10' })).toThrow(/Unknown query parameter/);
  expect(() => parseTransformPresets({ thumb: '' })).toThrow(/asks for no transform/);
  expect(() => parseTransformPresets({ 'Thumb!': 'w=10' })).toThrow(/lowercase letters/);
});
