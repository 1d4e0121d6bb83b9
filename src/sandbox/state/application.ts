/**
 * The application's editable settings (PATCH /applications/@me): what GET /applications/@me shows beyond the
 * fixed identity. Defaults describe a fresh sandbox application.
 */

export type Json = Record<string, unknown>;

export interface ApplicationSettings {
  description: string;
  icon: string | null;
  coverImage: string | null;
  tags: string[];
  customInstallUrl: string | null;
  roleConnectionsVerificationUrl: string | null;
  installParams: Json;
  integrationTypesConfig: Json;
  eventWebhooksUrl: string | null;
  /** 1 disabled, 2 enabled. */
  eventWebhooksStatus: number;
  eventWebhooksTypes: string[];
  /** 0 INHERIT, 1 ALWAYS (PATCH explicit_content_filter); absent: 0. */
  explicitContentFilter?: number;
}

export function defaultApplicationSettings(): ApplicationSettings {
  return {
    description: 'The gatehouse sandbox application',
    icon: null,
    coverImage: null,
    tags: [],
    customInstallUrl: null,
    roleConnectionsVerificationUrl: null,
    installParams: { scopes: ['applications.commands', 'bot'], permissions: '0' },
    integrationTypesConfig: {
      '0': { oauth2_install_params: { scopes: ['applications.commands', 'bot'], permissions: '0' } },
      '1': { oauth2_install_params: { scopes: ['applications.commands'], permissions: '0' } },
    },
    eventWebhooksUrl: null,
    eventWebhooksStatus: 1,
    eventWebhooksTypes: [],
  };
}
