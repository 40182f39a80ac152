/**
 * Stored credentials for an OpenAPI tool's API. The backend applies them to every request; the model never sees
 * them (they are not parameters of any tool, and their values are redacted from what the API answers). `scheme`
 * binds a credential to a security scheme of the document by name; an API key without `name`/`in` takes them from
 * that scheme, or from the document's only `apiKey` scheme. Storage keeps them encrypted at rest.
 */
export type OpenApiAuth =
  | {
      readonly type: 'api-key';
      readonly value: string;
      readonly name?: string;
      readonly in?: 'header' | 'query' | 'cookie';
      readonly scheme?: string;
    }
  | { readonly type: 'bearer'; readonly token: string; readonly scheme?: string }
  | {
      readonly type: 'basic';
      readonly username: string;
      readonly password: string;
      readonly scheme?: string;
    };
