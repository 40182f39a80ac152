import { omitUndefined } from '@toolbus/spec';

// A third-party option bag we cannot widen (`timeoutMs?: number`), merged over the library's defaults.
interface UploadOptions {
  readonly timeoutMs?: number;
  readonly userId?: string;
}
function upload(filename: string, options: UploadOptions): string {
  const settings = { timeoutMs: 30_000, ...options };
  return `${filename}: timeout ${settings.timeoutMs} ms, user ${settings.userId ?? 'none'}`;
}

// Our caller, whose settings may each be unset.
interface OurOptions {
  readonly timeoutMs?: number | undefined;
  readonly userId?: string | undefined;
}
function uploadFile(filename: string, options: OurOptions = {}): string {
  // `{ timeoutMs: options.timeoutMs, ... }` does not compile under exactOptionalPropertyTypes; forced through with a
  // cast, it hands on a present `undefined` that wipes the default out (the last line below).
  return upload(filename, omitUndefined({ timeoutMs: options.timeoutMs, userId: options.userId }));
}

console.log(uploadFile('report.csv'));
console.log(uploadFile('report.csv', { timeoutMs: 5_000, userId: 'ana' }));
const unset: OurOptions = {};
console.log(upload('report.csv', { timeoutMs: unset.timeoutMs } as UploadOptions));
