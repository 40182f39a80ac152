import { ToolbusError } from '@toolbus/spec';

/**
 * Why a repository could not be made ready for the coding agent:
 * - `invalid_repository`: the `github_repo` argument is not a repository the tool accepts;
 * - `repository_not_found` (404), `repository_unauthorized` (401), `repository_forbidden` (403),
 *   `repository_rate_limited` (429), `repository_http` (any other status);
 * - `repository_too_large`: the archive passed the size cap while it streamed;
 * - `repository_timeout`: no answer, or a silence longer than the read timeout;
 * - `repository_unreachable`: the connection failed or was refused (the guarded fetch's own code is the cause);
 * - `local_repository_refused`: a local path outside the roots the application allowed;
 * - `repository_unpack_failed`: the archive did not unpack inside the sandbox.
 */
export type RepositoryErrorCode =
  | 'invalid_repository'
  | 'repository_not_found'
  | 'repository_unauthorized'
  | 'repository_forbidden'
  | 'repository_rate_limited'
  | 'repository_http'
  | 'repository_too_large'
  | 'repository_timeout'
  | 'repository_unreachable'
  | 'local_repository_refused'
  | 'repository_unpack_failed';

/** A repository setup failure, with a message the model (and a person) can act on. */
export class RepositoryError extends ToolbusError<RepositoryErrorCode> {
  static override readonly errorName = 'RepositoryError';
}
