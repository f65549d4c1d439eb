/**
 * /public-api/registry and /public-api/content-types: what the forms offer. Resources (native and
 * every website's publications) with their fields, commands, and the content types websites may publish.
 */
import type { Context } from 'koa';
import type { GetContentTypes, GetRegistry } from '../../../../shared/contracts/registry';
import { targetResolver } from '../../grants/targets';
import { getService } from '../../utils/get-service';
import { apiBaseUrl } from './api-base-url';
import { toCommandSummary, toContentTypeSummaries, toResourceSummary } from './serialize';

export default () => ({
  async registry(ctx: Context) {
    const resources = await getService('resources').all();
    const context = {
      resolveTarget: targetResolver(resources),
      schemas: getService('resources').schemas(),
      labels: await getService('editor-labels').byContentType(),
    };
    ctx.body = {
      data: {
        apiBaseUrl: apiBaseUrl(ctx),
        resources: resources.map((resource) => toResourceSummary(resource, context)),
        commands: getService('commands').all().map(toCommandSummary),
      },
    } satisfies GetRegistry.Response;
  },

  async contentTypes(ctx: Context) {
    ctx.body = { data: toContentTypeSummaries(getService('resources').schemas()) } satisfies GetContentTypes.Response;
  },
});
