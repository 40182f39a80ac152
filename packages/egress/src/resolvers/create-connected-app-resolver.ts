import type { CredentialResolver } from '../decision/credential-resolver.ts';
import { CredentialUnavailableError } from '../decision/credential-unavailable-error.ts';
import type { ConnectedApp } from '../decision/egress-catalogue.ts';
import type { EgressIdentity } from '../decision/egress-request.ts';
import { renderCredentialTemplate, templateNeedsUser } from '../decision/render-credential-template.ts';

type MaybePromise<T> = T | Promise<T>;

/** Where a connected app's credential comes from. */
export interface ConnectedAppCredentialSource {
  /** The app's header template (`{"Authorization": "Bearer {{user.token}}"}`), or a plain header map. */
  readonly template: (app: ConnectedApp) => MaybePromise<Readonly<Record<string, string>> | undefined>;
  /** Organisation-wide values for `{{org.*}}` placeholders. */
  readonly organizationValues?: (
    app: ConnectedApp,
    organizationId: string | undefined,
  ) => MaybePromise<Readonly<Record<string, string>>>;
  /** The values of exactly this user for `{{user.*}}` placeholders; only ever called with the requester's id. */
  readonly userValues?: (
    app: ConnectedApp,
    userId: string,
  ) => MaybePromise<Readonly<Record<string, string>> | undefined>;
}

/**
 * Adds a connected app's credential to requests attributed to that app. An app that is not usable (disabled,
 * never connected) forwards bare, so the upstream's 401 reaches the agent; a credential that exists but cannot be
 * completed (a per-user value for a request without a user, an unset value) blocks.
 */
export function createConnectedAppResolver(source: ConnectedAppCredentialSource): CredentialResolver {
  return {
    name: 'connected_app',
    claims: (request) => request.app !== undefined,
    async resolve(request) {
      const app = request.app;
      if (app === undefined || !app.usable) return {};
      const template = await source.template(app);
      if (template === undefined) return {};
      const identity: EgressIdentity = request.identity;
      let user: Readonly<Record<string, string>> | undefined;
      if (templateNeedsUser(template)) {
        if (identity.userId === undefined) {
          throw new CredentialUnavailableError(
            `The app ${app.name} needs a per-user credential, but the sandbox runs without a user.`,
          );
        }
        user = (await source.userValues?.(app, identity.userId)) ?? {};
      }
      const organization = (await source.organizationValues?.(app, identity.organizationId)) ?? {};
      return renderCredentialTemplate(template, { organization, user });
    },
  };
}
