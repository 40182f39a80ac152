/**
 * Why a file named on the command line could not be read, in words a person acts on (`no such file`, `it is a
 * folder, not a file`, `permission denied`), else the system's own message: `--file`, `openapi add`, `skills
 * add`/`validate` and the config file say it alike. `folderHint` follows the folder case (what to do instead).
 */
export function unreadableFileReason(error: NodeJS.ErrnoException, folderHint = ''): string {
  switch (error.code) {
    case 'ENOENT':
      return 'no such file';
    case 'EISDIR':
      return `it is a folder, not a file${folderHint}`;
    case 'EACCES':
      return 'permission denied';
    default:
      return error.message;
  }
}
