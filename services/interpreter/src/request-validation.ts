import { omitUndefined } from '@toolbus/spec';
import { HttpError } from './http-error.ts';
import type { InterpreterLimits } from './interpreter-limits.ts';
import { managedWorkspaceFolder, maxSkillsPerRequest, skillNamePattern } from './skills-directory.ts';
import { validateWorkspacePath } from './workspace-path.ts';

const uuidPattern = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** True for a lowercase RFC 4122 uuid, the only id form the service issues. */
export function isUuid(value: string): boolean {
  return uuidPattern.test(value);
}

/** A file from the store to place in the workspace. */
export interface WorkspaceFileReference {
  readonly path: string;
  readonly fileId: string;
}

/** A validated `POST /v1/execute` body. */
export interface ExecuteRequest {
  readonly code: string;
  readonly stdin?: string;
  readonly timeoutMs: number;
  readonly files: readonly WorkspaceFileReference[];
  /** Names of skills to mount read-only at /workspace/managed/skills/<name>. */
  readonly skills: readonly string[];
}

const invalid = (message: string): HttpError =>
  new HttpError({ status: 400, code: 'invalid_request', message });

function rejectUnknownFields(body: Record<string, unknown>, allowed: readonly string[]): void {
  const unknown = Object.keys(body).filter((key) => !allowed.includes(key));
  if (unknown.length > 0)
    throw invalid(`unknown field(s): ${unknown.join(', ')}; allowed: ${allowed.join(', ')}`);
}

function readString(
  body: Record<string, unknown>,
  field: string,
  options: { maxBytes: number; required: boolean },
) {
  const value = body[field];
  if (value === undefined && !options.required) return undefined;
  if (typeof value !== 'string') throw invalid(`${field} must be a string`);
  if (Buffer.byteLength(value) > options.maxBytes) {
    throw new HttpError({
      status: 413,
      code: 'field_too_large',
      message: `${field} is limited to ${options.maxBytes} bytes`,
    });
  }
  return value;
}

function readInteger(
  body: Record<string, unknown>,
  field: string,
  options: { min: number; max: number; fallback: number },
) {
  const value = body[field];
  if (value === undefined) return options.fallback;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < options.min || value > options.max) {
    throw invalid(`${field} must be an integer from ${options.min} to ${options.max}`);
  }
  return value;
}

function readFiles(body: Record<string, unknown>, maxFiles: number): WorkspaceFileReference[] {
  const value = body.files;
  if (value === undefined) return [];
  if (!Array.isArray(value)) throw invalid('files must be an array of {path, file_id}');
  if (value.length > maxFiles) throw invalid(`at most ${maxFiles} files per request`);
  const seen = new Set<string>();
  return value.map((entry: unknown, index) => {
    if (typeof entry !== 'object' || entry === null || Array.isArray(entry)) {
      throw invalid(`files[${index}] must be an object {path, file_id}`);
    }
    const record = entry as Record<string, unknown>;
    rejectUnknownFields(record, ['path', 'file_id']);
    const path = validateWorkspacePath(record.path, `files[${index}].path`);
    if (seen.has(path)) throw invalid(`files[${index}].path repeats ${path}`);
    seen.add(path);
    const fileId = record.file_id;
    if (typeof fileId !== 'string' || !isUuid(fileId))
      throw invalid(`files[${index}].file_id must be a uuid`);
    return { path, fileId };
  });
}

function readSkillNames(body: Record<string, unknown>): string[] {
  const value = body.skills;
  if (value === undefined) return [];
  if (!Array.isArray(value)) throw invalid('skills must be an array of skill names');
  if (value.length > maxSkillsPerRequest) throw invalid(`at most ${maxSkillsPerRequest} skills per request`);
  const seen = new Set<string>();
  return value.map((name: unknown, index) => {
    if (typeof name !== 'string' || name.length > 64 || !skillNamePattern.test(name)) {
      throw invalid(
        `skills[${index}] must be a skill name: lowercase letters and digits in words joined by single hyphens, at most 64 characters`,
      );
    }
    if (seen.has(name)) throw invalid(`skills[${index}] repeats ${name}`);
    seen.add(name);
    return name;
  });
}

/** With skills mounted, `managed/` of the workspace is covered by them: an input file there would be hidden. */
function refuseHiddenInputs(files: readonly WorkspaceFileReference[], skills: readonly string[]): void {
  if (skills.length === 0) return;
  const hidden = files.find((file) => file.path.split('/')[0] === managedWorkspaceFolder);
  if (hidden !== undefined) {
    throw invalid(`files: ${hidden.path} would be hidden by the skills mounted at /workspace/managed`);
  }
}

/** Validates an execute body (batch or stream). */
export function parseExecuteRequest(
  body: Record<string, unknown>,
  limits: InterpreterLimits,
): ExecuteRequest {
  rejectUnknownFields(body, ['code', 'stdin', 'timeout_ms', 'files', 'skills']);
  const code = readString(body, 'code', { maxBytes: limits.maxCodeBytes, required: true }) as string;
  const stdin = readString(body, 'stdin', { maxBytes: limits.maxStdinBytes, required: false });
  const timeoutMs = readInteger(body, 'timeout_ms', {
    min: 1,
    max: limits.maxTimeoutMs,
    fallback: limits.defaultTimeoutMs,
  });
  const files = readFiles(body, limits.maxFilesPerExecution);
  const skills = readSkillNames(body);
  refuseHiddenInputs(files, skills);
  return { code, timeoutMs, files, skills, ...omitUndefined({ stdin }) };
}

/** A validated `POST /v1/sessions` body. */
export interface CreateSessionRequest {
  readonly ttlSeconds: number;
  readonly files: readonly WorkspaceFileReference[];
  /** Skills mounted for every command of the session. */
  readonly skills: readonly string[];
}

/** Validates a session creation body. */
export function parseCreateSessionRequest(
  body: Record<string, unknown>,
  limits: InterpreterLimits,
): CreateSessionRequest {
  rejectUnknownFields(body, ['ttl_seconds', 'files', 'skills']);
  const files = readFiles(body, limits.maxFilesPerExecution);
  const skills = readSkillNames(body);
  refuseHiddenInputs(files, skills);
  return {
    ttlSeconds: readInteger(body, 'ttl_seconds', {
      min: 1,
      max: limits.maxSessionTtlSeconds,
      fallback: limits.defaultSessionTtlSeconds,
    }),
    files,
    skills,
  };
}

/** A validated `POST /v1/sessions/{id}/bash` body. */
export interface BashRequest {
  readonly command: string;
  readonly timeoutMs: number;
}

/** Validates a session command body. */
export function parseBashRequest(body: Record<string, unknown>, limits: InterpreterLimits): BashRequest {
  rejectUnknownFields(body, ['command', 'timeout_ms']);
  const command = readString(body, 'command', { maxBytes: limits.maxCodeBytes, required: true }) as string;
  if (command.length === 0) throw invalid('command must not be empty');
  const timeoutMs = readInteger(body, 'timeout_ms', {
    min: 1,
    max: limits.maxTimeoutMs,
    fallback: limits.defaultTimeoutMs,
  });
  return { command, timeoutMs };
}
