/** The value of cookie `name` in a request's `Cookie` header, if it is there. */
export function cookieValue(header: string | undefined, name: string): string | undefined {
  if (!header) return undefined;
  for (const part of header.split(';')) {
    const [key, ...rest] = part.trim().split('=');
    if (key === name) return rest.join('=');
  }
  return undefined;
}

/** Options for {@link setCookieHeader}. */
export interface CookieOptions {
  readonly name: string;
  readonly value: string;
  readonly maxAgeSeconds: number;
  readonly sameSite: 'Strict' | 'Lax';
  readonly path: string;
  /** Sent over HTTPS only: set whenever the browser reaches the server over https (see `publicOrigin`). */
  readonly secure: boolean;
}

/** A `Set-Cookie` value: always HttpOnly (no script reads a toolbus cookie). */
export function setCookieHeader(options: CookieOptions): string {
  return `${options.name}=${options.value}; HttpOnly; SameSite=${options.sameSite}; Path=${options.path}; Max-Age=${options.maxAgeSeconds}${options.secure ? '; Secure' : ''}`;
}
