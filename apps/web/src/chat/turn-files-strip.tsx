import type { FileReference } from '@toolbus/spec';
import { client } from '../common/api.ts';

/**
 * The files a turn made, under its answer: image thumbnails (each a link to the full image) and links for the
 * rest, so "the chart above" is on screen whichever tool tab is open.
 */
export function TurnFiles(props: { readonly files: readonly FileReference[] }) {
  if (props.files.length === 0) return null;
  return (
    <section className="turn-files" aria-label="Files from this answer">
      <ul>
        {props.files.map((file) => {
          const url = client.fileContentUrl(file.fileId);
          return (
            <li key={file.fileId}>
              <a href={url} target="_blank" rel="noopener noreferrer" download={file.name}>
                {file.mediaType.startsWith('image/') ? (
                  <img src={url} alt="" className="turn-file-thumb" loading="lazy" />
                ) : (
                  <span className="turn-file-icon" aria-hidden="true">
                    ▤
                  </span>
                )}
                <span className="turn-file-name">{file.name}</span>
              </a>
            </li>
          );
        })}
      </ul>
    </section>
  );
}
