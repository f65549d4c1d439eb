/**
 * Where the upload plugin stores files, from the environment. Pure: takes the environment and whether a
 * package is installed, returns the upload plugin's configuration (or null for Strapi's default, the local
 * provider under PUBLIC_DIR/uploads), or throws an UploadProviderError whose message is one line a person
 * can act on.
 *
 * `UPLOAD_PROVIDER=aws-s3` picks `@strapi/provider-upload-aws-s3` (S3 or an S3-compatible store). That
 * package is not a dependency of this application (every @strapi/* package here is on one version, and it
 * is not published at that version): the operator installs it beside the application when wanted; asked
 * for but missing, the start stops with one line saying so (docs/deployment.md, Uploads).
 */
export class UploadProviderError extends Error {
  override name = 'UploadProviderError';
}

type Env = Record<string, string | undefined>;

export const UPLOAD_PROVIDERS = ['local', 'aws-s3'] as const;
export const S3_PROVIDER_PACKAGE = '@strapi/provider-upload-aws-s3';

export type UploadPluginConfig = {
  config: {
    provider: 'aws-s3';
    providerOptions: {
      baseUrl?: string;
      rootPath?: string;
      s3Options: {
        region: string;
        endpoint?: string;
        forcePathStyle?: boolean;
        credentials?: { accessKeyId: string; secretAccessKey: string };
        params: { Bucket: string; ACL?: string; signedUrlExpires?: number };
      };
    };
    actionOptions: { upload: Record<string, never>; uploadStream: Record<string, never>; delete: Record<string, never> };
  };
};

const required = (env: Env, name: string): string => {
  const value = env[name]?.trim();
  if (!value) throw new UploadProviderError(`UPLOAD_PROVIDER=aws-s3 needs ${name}.`);
  return value;
};

/** The upload plugin's configuration, or null for the local provider. */
export const resolveUploadProvider = (env: Env, isInstalled: (name: string) => boolean): UploadPluginConfig | null => {
  const provider = (env.UPLOAD_PROVIDER || 'local').trim().toLowerCase();
  if (!(UPLOAD_PROVIDERS as readonly string[]).includes(provider)) {
    throw new UploadProviderError(`UPLOAD_PROVIDER must be one of ${UPLOAD_PROVIDERS.join(', ')}, got '${env.UPLOAD_PROVIDER}'.`);
  }
  if (provider === 'local') return null;
  if (!isInstalled(S3_PROVIDER_PACKAGE)) {
    throw new UploadProviderError(
      `UPLOAD_PROVIDER=aws-s3 needs the package ${S3_PROVIDER_PACKAGE}, which is not installed: install it beside the application (npm install --no-save ${S3_PROVIDER_PACKAGE}), or unset UPLOAD_PROVIDER.`,
    );
  }
  const accessKeyId = env.AWS_ACCESS_KEY_ID?.trim();
  const secretAccessKey = env.AWS_SECRET_ACCESS_KEY?.trim();
  if (Boolean(accessKeyId) !== Boolean(secretAccessKey)) {
    throw new UploadProviderError(
      'AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY go together (or neither: the AWS default credential chain).',
    );
  }
  const endpoint = env.AWS_ENDPOINT?.trim();
  if (endpoint && !/^https?:\/\/[^\s/]+/.test(endpoint)) {
    throw new UploadProviderError(`AWS_ENDPOINT must be an http(s) URL, got '${endpoint}'.`);
  }
  const baseUrl = env.AWS_PUBLIC_URL?.trim();
  if (baseUrl && !/^https?:\/\/[^\s/]+/.test(baseUrl)) {
    throw new UploadProviderError(`AWS_PUBLIC_URL must be an http(s) URL, got '${baseUrl}'.`);
  }
  return {
    config: {
      provider: 'aws-s3',
      providerOptions: {
        ...(baseUrl ? { baseUrl } : {}),
        ...(env.AWS_ROOT_PATH?.trim() ? { rootPath: env.AWS_ROOT_PATH.trim() } : {}),
        s3Options: {
          region: required(env, 'AWS_REGION'),
          ...(endpoint ? { endpoint, forcePathStyle: /^(true|1|yes)$/i.test(env.AWS_FORCE_PATH_STYLE ?? '') } : {}),
          ...(accessKeyId && secretAccessKey ? { credentials: { accessKeyId, secretAccessKey } } : {}),
          params: { Bucket: required(env, 'AWS_BUCKET'), ...(env.AWS_ACL?.trim() ? { ACL: env.AWS_ACL.trim() } : {}) },
        },
      },
      actionOptions: { upload: {}, uploadStream: {}, delete: {} },
    },
  };
};
