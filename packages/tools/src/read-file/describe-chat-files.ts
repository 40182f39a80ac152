import type { ChatFile } from '@toolbus/spec';

const maxListed = 50;
const maxNameLength = 200;

/**
 * The chat's files as lines the model reads (`- name (file_id: id)`). Names are the user's text: control
 * characters become spaces and long names are cut, so a crafted file name cannot forge lines of the message.
 */
export function describeChatFiles(files: readonly ChatFile[]): string {
  if (files.length === 0) return 'No files are attached to this chat, so there is nothing to read.';
  const lines = files
    .slice(0, maxListed)
    .map((file) => `- ${cleanName(file.name)} (file_id: ${cleanName(file.id)})`);
  if (files.length > maxListed) lines.push(`- … and ${files.length - maxListed} more`);
  return `Files you can read:\n${lines.join('\n')}`;
}

/** A user-supplied name or id made safe to quote on one line. */
export function cleanName(name: string): string {
  const flat = name.replace(/[\u0000-\u001f\u007f-\u009f\u2028\u2029]/g, ' ').trim();
  return flat.length > maxNameLength ? `${flat.slice(0, maxNameLength)}…` : flat;
}
