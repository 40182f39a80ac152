import { sseEvents } from '@toolbus/client';
import { useState } from 'react';
import { ActionForm } from '../common/action-form.tsx';
import { client } from '../common/api.ts';
import { Feedback } from '../common/feedback.tsx';
import { FilePicker } from '../common/file-picker.tsx';
import { useAction, useLoad } from '../common/use-load.ts';

/** Documents: what is indexed, upload one, or index a server folder with live progress. */
export function DocumentsPage() {
  const counts = useLoad(() => client.request<Record<string, number>>('GET', '/v1/admin/documents'), []);
  const action = useAction();
  const [path, setPath] = useState('');
  const [progress, setProgress] = useState<{ done: number; total: number; path?: string } | undefined>();
  const indexFolder = async () => {
    setProgress({ done: 0, total: 0 });
    const response = await client.raw('POST', '/v1/admin/documents/index', {
      body: JSON.stringify({ path }),
      contentType: 'application/json',
      headers: { accept: 'text/event-stream' },
    });
    let result = '';
    for await (const event of sseEvents(response.body as ReadableStream<Uint8Array>)) {
      const data = JSON.parse(event.data) as Record<string, unknown>;
      if (event.event === 'progress') setProgress(data as { done: number; total: number; path?: string });
      else if (event.event === 'error') throw new Error(String(data.message));
      else if (event.event === 'result') result = JSON.stringify(data);
    }
    counts.reload();
    return `Indexed: ${result}`;
  };
  return (
    <div>
      <h1>Documents</h1>
      <dl className="counts">
        {Object.entries(counts.value ?? {}).map(([name, value]) => (
          <div key={name}>
            <dt>{name}</dt>
            <dd>{value}</dd>
          </div>
        ))}
      </dl>
      <FilePicker
        label="Upload a document"
        onFile={(file) =>
          void action.run(async () => {
            await client.upload('/v1/admin/documents/uploads', file, {
              contentType: file.type || 'text/plain',
              query: { name: file.name },
            });
            counts.reload();
            return `Indexed ${file.name}.`;
          })
        }
      />
      <ActionForm action={action} className="inline-form" submit="Index folder" onSubmit={indexFolder}>
        <label>
          Server folder <input value={path} onChange={(event) => setPath(event.target.value)} required />
        </label>
      </ActionForm>
      {progress ? (
        <div>
          <label htmlFor="index-progress">Indexing {progress.path ?? ''}</label>
          <progress id="index-progress" value={progress.done} max={Math.max(1, progress.total)}>
            {progress.done}/{progress.total}
          </progress>{' '}
          {progress.done}/{progress.total}
        </div>
      ) : null}
      <Feedback error={action.error ?? counts.error} note={action.note} />
    </div>
  );
}
