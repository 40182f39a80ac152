// Small helpers the interpreter tests share: plain fetch calls against a real server on loopback.
import { readdirSync, readFileSync } from 'node:fs';
import type { ExecuteResponse } from '@toolbus/spec';

export async function postJson(baseUrl: string, path: string, body: unknown): Promise<{ status: number; json: any }> {
  const response = await fetch(baseUrl + path, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  const text = await response.text();
  return { status: response.status, json: text ? JSON.parse(text) : undefined };
}

export async function execute(baseUrl: string, body: Record<string, unknown>): Promise<ExecuteResponse> {
  const { status, json } = await postJson(baseUrl, '/v1/execute', body);
  if (status !== 200) throw new Error(`execute answered ${status}: ${JSON.stringify(json)}`);
  return json as ExecuteResponse;
}

export async function upload(baseUrl: string, filename: string, bytes: Uint8Array | string): Promise<string> {
  const response = await fetch(`${baseUrl}/v1/files?filename=${encodeURIComponent(filename)}`, {
    method: 'POST',
    headers: { 'content-type': 'application/octet-stream' },
    body: typeof bytes === 'string' ? new TextEncoder().encode(bytes) : new Uint8Array(bytes),
  });
  const json = (await response.json()) as { file_id: string };
  if (response.status !== 201) throw new Error(`upload answered ${response.status}`);
  return json.file_id;
}

export async function download(baseUrl: string, fileId: string): Promise<Buffer> {
  const response = await fetch(`${baseUrl}/v1/files/${fileId}`);
  if (response.status !== 200) throw new Error(`download answered ${response.status}`);
  return Buffer.from(await response.arrayBuffer());
}

/** Host processes whose command line contains `marker` (to prove a sandbox left nothing running). */
export function hostProcessesWith(marker: string): number[] {
  const found: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const commandLine = readFileSync(`/proc/${entry}/cmdline`, 'utf8').replaceAll('\0', ' ');
      if (commandLine.includes(marker)) found.push(Number(entry));
    } catch {}
  }
  return found;
}

/** The JSON body of a response, loosely typed for assertions. */
export async function readJson(response: Response): Promise<any> {
  return response.json();
}

/** GET a JSON document. */
export async function getJson(url: string): Promise<any> {
  return readJson(await fetch(url));
}
