import { sseEvents } from '@toolbus/client';
import { useState } from 'react';
import { client } from '../common/api.ts';
import { Feedback } from '../common/feedback.tsx';
import { useAction, useLoad } from '../common/use-load.ts';

/** Documents: what is indexed, upload one, or index a server folder with live progress. */
export function DocumentsPage() {
  const counts = useLoad(() => client.request<Record<string, number>>('GET', '/v1/admin/documents'), []);
  const action = useAction();
  const [path, setPath] = useState('');
  const [progress, setProgress] = useState<{ done: number; total: number; path?: string } | undefined>();
  const indexFolder = () =>
    action.run(async () => {
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
    });
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
      <label>
        Upload a document{' '}
        <input
          type="file"
          onChange={(event) => {
            const file = event.target.files?.[0];
            event.target.value = '';
            if (!file) return;
            void action.run(async () => {
              await client.upload('/v1/admin/documents/uploads', file, {
                contentType: file.type || 'text/plain',
                query: { name: file.name },
              });
              counts.reload();
              return `Indexed ${file.name}.`;
            });
          }}
        />
      </label>
      <form
        className="inline-form"
        onSubmit={(event) => {
          event.preventDefault();
          void indexFolder();
        }}
      >
        <label>
          Server folder <input value={path} onChange={(event) => setPath(event.target.value)} required />
        </label>
        <button type="submit" disabled={action.busy}>
          Index folder
        </button>
      </form>
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
