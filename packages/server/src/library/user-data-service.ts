import type { Memory, Storage, UploadedFile, User, UserSettings } from '@toolbus/storage';
import { ownsRow, type Principal } from '../http/principal.ts';
import { notFoundError } from '../http/server-error.ts';

/**
 * A user's own files and memories, as typed operations over the caller. Another user's file or memory is
 * `not_found`, so its existence is never revealed.
 */
export class UserDataService {
  readonly #storage: Storage;

  constructor(storage: Storage) {
    this.#storage = storage;
  }

  async uploadFile(
    principal: Principal,
    file: { name: string; mediaType: string; content: Uint8Array },
  ): Promise<UploadedFile> {
    return this.#storage.files.put({
      userId: principal.user.id,
      organizationId: principal.organization.id,
      ...file,
    });
  }

  async listFiles(principal: Principal): Promise<readonly UploadedFile[]> {
    return (await this.#storage.files.listForUser(principal.user.id)).filter((file) =>
      ownsRow(principal, file),
    );
  }

  async getFile(principal: Principal, fileId: string): Promise<UploadedFile> {
    const file = await this.#storage.files.get(fileId);
    if (!file || !ownsRow(principal, file)) {
      throw notFoundError('path.fileId', `no file ${JSON.stringify(fileId)} of yours.`);
    }
    return file;
  }

  async readFile(principal: Principal, fileId: string): Promise<{ file: UploadedFile; content: Uint8Array }> {
    const file = await this.getFile(principal, fileId);
    const content = await this.#storage.files.readContent(file.id);
    if (!content) {
      throw notFoundError('path.fileId', 'the file has no content.');
    }
    return { file, content };
  }

  async deleteFile(principal: Principal, fileId: string): Promise<void> {
    await this.getFile(principal, fileId);
    await this.#storage.files.delete(fileId);
  }

  /** Changes the caller's own settings (the memory tool on or off, search forcing). */
  async updateSettings(principal: Principal, settings: Partial<UserSettings>): Promise<User> {
    return this.#storage.users.update(principal.user.id, { settings });
  }

  async listMemories(principal: Principal): Promise<readonly Memory[]> {
    return this.#storage.memories.list(principal.user.id, principal.organization.id);
  }

  async addMemory(principal: Principal, text: string): Promise<Memory> {
    return this.#storage.memories.add({
      userId: principal.user.id,
      organizationId: principal.organization.id,
      text,
    });
  }

  async updateMemory(principal: Principal, memoryId: string, text: string): Promise<Memory> {
    await this.#memory(principal, memoryId);
    return this.#storage.memories.update(memoryId, text);
  }

  async deleteMemory(principal: Principal, memoryId: string): Promise<void> {
    await this.#memory(principal, memoryId);
    await this.#storage.memories.delete(memoryId);
  }

  async #memory(principal: Principal, memoryId: string): Promise<Memory> {
    const memories = await this.#storage.memories.list(principal.user.id, principal.organization.id);
    const memory = memories.find((candidate) => candidate.id === memoryId);
    if (!memory || !ownsRow(principal, memory)) {
      throw notFoundError('path.memoryId', `no memory ${JSON.stringify(memoryId)} of yours.`);
    }
    return memory;
  }
}
