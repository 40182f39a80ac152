import type { FileReference } from '@toolbus/spec';
import { useEffect, useState } from 'react';
import { client } from '../common/api.ts';
import type { ToolState } from '../turn/turn-tree.ts';
import { sourceHref } from './source-href.ts';

function isImage(file: FileReference): boolean {
  return file.mediaType.startsWith('image/');
}

function CsvPreview(props: { readonly file: FileReference }) {
  const [rows, setRows] = useState<string[][] | undefined>();
  useEffect(() => {
    let live = true;
    void client
      .raw('GET', `/v1/files/${encodeURIComponent(props.file.fileId)}/content`)
      .then((response) => response.text())
      .then((text) => {
        if (live)
          setRows(
            text
              .split(/\r?\n/)
              .filter(Boolean)
              .slice(0, 11)
              .map((line) => line.split(',')),
          );
      })
      .catch(() => undefined);
    return () => {
      live = false;
    };
  }, [props.file.fileId]);
  if (!rows) return null;
  const [head, ...body] = rows;
  return (
    <table className="csv">
      <caption>{props.file.name}</caption>
      <thead>
        <tr>
          {(head ?? []).map((cell, index) => (
            // biome-ignore lint/suspicious/noArrayIndexKey: cells have no identity
            <th key={index} scope="col">
              {cell}
            </th>
          ))}
        </tr>
      </thead>
      <tbody>
        {body.map((row, rowIndex) => (
          // biome-ignore lint/suspicious/noArrayIndexKey: rows have no identity
          <tr key={rowIndex}>
            {row.map((cell, index) => (
              // biome-ignore lint/suspicious/noArrayIndexKey: cells have no identity
              <td key={index}>{cell}</td>
            ))}
          </tr>
        ))}
      </tbody>
    </table>
  );
}

/** Files a tool produced: images inline, CSV as a table preview, anything else as a download link. */
export function FileList(props: { readonly files: readonly FileReference[] }) {
  if (props.files.length === 0) return null;
  return (
    <ul className="files">
      {props.files.map((file) => (
        <li key={file.fileId}>
          {isImage(file) ? (
            <img src={client.fileContentUrl(file.fileId)} alt={file.name} className="tool-image" />
          ) : file.mediaType === 'text/csv' || file.name.endsWith('.csv') ? (
            <CsvPreview file={file} />
          ) : null}
          <a href={client.fileContentUrl(file.fileId)} download={file.name}>
            {file.name}
          </a>
        </li>
      ))}
    </ul>
  );
}

function Output(props: { readonly label: string; readonly text: string; readonly className: string }) {
  if (!props.text) return null;
  return (
    <figure className={props.className}>
      <figcaption>{props.label}</figcaption>
      {/* biome-ignore lint/a11y/noNoninteractiveTabindex: a scrollable region must be reachable by keyboard */}
      <pre tabIndex={0}>{props.text}</pre>
    </figure>
  );
}

function resultText(data: unknown): string {
  if (typeof data === 'string') return data;
  try {
    return JSON.stringify(data, null, 2);
  } catch {
    return String(data);
  }
}

/**
 * The live view of one tool call, from whatever it streamed: arguments as the model writes them (code), queries,
 * documents, URLs, output, files, results, memory changes. Nothing here depends on the tool's name.
 */
export function ToolBody(props: { readonly tool: ToolState }) {
  const tool = props.tool;
  const streamed = Object.entries(tool.streamedArguments);
  const finalArguments = tool.arguments ?? {};
  return (
    <div className="tool-body">
      {streamed.map(([name, text]) => (
        <Output key={name} label={name} text={text} className="tool-code" />
      ))}
      {streamed.length === 0 && typeof finalArguments.code === 'string' ? (
        <Output label="code" text={finalArguments.code} className="tool-code" />
      ) : null}
      {tool.queries.length > 0 ? (
        <div className="tool-section">
          <h4>Queries</h4>
          <ul className="queries">
            {tool.queries.map((query, index) => (
              // biome-ignore lint/suspicious/noArrayIndexKey: queries may repeat
              <li key={index}>{query}</li>
            ))}
          </ul>
        </div>
      ) : null}
      {tool.urls.length > 0 ? (
        <div className="tool-section">
          <h4>Opened</h4>
          <ul>
            {tool.urls.map((url) => (
              <li key={url}>
                {sourceHref(url) ? (
                  <a href={sourceHref(url)} target="_blank" rel="noopener noreferrer nofollow">
                    {url}
                  </a>
                ) : (
                  url
                )}
              </li>
            ))}
          </ul>
        </div>
      ) : null}
      {tool.documents.length > 0 ? (
        <div className="tool-section">
          <h4>Documents</h4>
          <ol className="documents">
            {tool.documents.map((document) => (
              <li key={`${document.citationNumber}:${document.id}`} value={document.citationNumber}>
                {sourceHref(document.link) ? (
                  <a href={sourceHref(document.link)} target="_blank" rel="noopener noreferrer nofollow">
                    {document.title}
                  </a>
                ) : (
                  <span>{document.title}</span>
                )}
                <span className="source-type">{document.sourceType}</span>
                <p className="blurb">{document.blurb}</p>
              </li>
            ))}
          </ol>
        </div>
      ) : null}
      {tool.fileReads.map((read, index) => (
        // biome-ignore lint/suspicious/noArrayIndexKey: reads may repeat
        <p key={index} className="file-read">
          Read {read.fileName}: characters {read.startChar}–{read.endChar} of {read.totalChars}
        </p>
      ))}
      {tool.progress.length > 0 ? <p className="progress">{tool.progress.at(-1)}</p> : null}
      <Output label="stdout" text={tool.stdout} className="tool-stdout" />
      <Output label="stderr" text={tool.stderr} className="tool-stderr" />
      <FileList files={[...tool.files, ...tool.images]} />
      {tool.results.map((result, index) => (
        // biome-ignore lint/suspicious/noArrayIndexKey: results are a sequence
        <div key={index} className="tool-result">
          {result.responseType === 'image' && result.files.length === 0 ? null : (
            <Output
              label={`result (${result.responseType})`}
              text={resultText(result.data)}
              className="tool-json"
            />
          )}
          <FileList files={result.files} />
        </div>
      ))}
      {tool.memories.map((memory, index) => (
        // biome-ignore lint/suspicious/noArrayIndexKey: memory changes are a sequence
        <p key={index} className="memory">
          Memory {memory.operation === 'add' ? 'added' : 'updated'}: {memory.text}
        </p>
      ))}
    </div>
  );
}
