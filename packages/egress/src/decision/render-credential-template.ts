import { CredentialUnavailableError } from './credential-unavailable-error.ts';

/** Values a credential template is filled from: the organisation's and the one requesting user's. */
export interface CredentialTemplateValues {
  readonly organization: Readonly<Record<string, string>>;
  /** Undefined when the request has no user (then a `{{user.*}}` placeholder cannot be filled). */
  readonly user: Readonly<Record<string, string>> | undefined;
}

const placeholder = /\{\{\s*(org|user)\.([A-Za-z0-9_-]+)\s*\}\}/g;

/** True when some header value needs a per-user value. */
export function templateNeedsUser(template: Readonly<Record<string, string>>): boolean {
  return Object.values(template).some((value) => /\{\{\s*user\./.test(value));
}

/**
 * Fills a header template (`{"Authorization": "Bearer {{user.token}}"}`). A placeholder with no value is a
 * `CredentialUnavailableError` naming the placeholder (never a value): sending a half-filled credential would
 * only leak a fragment and fail upstream.
 */
export function renderCredentialTemplate(
  template: Readonly<Record<string, string>>,
  values: CredentialTemplateValues,
): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(template)) {
    headers[name] = value.replace(placeholder, (_match, scope: string, key: string) => {
      const source = scope === 'org' ? values.organization : values.user;
      const filled = source?.[key];
      if (filled === undefined || filled === '') {
        throw new CredentialUnavailableError(
          scope === 'user' && values.user === undefined
            ? 'This app needs a per-user credential, but the sandbox runs without a user.'
            : `The credential value ${scope}.${key} is not set; ask the user to connect the app again.`,
        );
      }
      return filled;
    });
  }
  return headers;
}
