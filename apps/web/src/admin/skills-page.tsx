import type { skillReviewSchema } from '@toolbus/api-schema';
import type { WireShape } from '@toolbus/client';
import { useState } from 'react';
import { ActionButton } from '../common/action-button.tsx';
import { client } from '../common/api.ts';
import { DeleteButton } from '../common/delete-button.tsx';
import { Feedback } from '../common/feedback.tsx';
import { FilePicker } from '../common/file-picker.tsx';
import { useAction, useLoad } from '../common/use-load.ts';

type SkillUploadReview = WireShape<typeof skillReviewSchema>;

function findingText(finding: unknown): string {
  if (finding && typeof finding === 'object') {
    const record = finding as Record<string, unknown>;
    const parts = [record.severity, record.rule ?? record.code, record.path ?? record.entry, record.message]
      .filter((part) => typeof part === 'string' || typeof part === 'number')
      .map(String);
    if (parts.length > 0) return parts.join(' · ');
  }
  return JSON.stringify(finding);
}

/** Skills: upload a zip, read its problems and scan findings, accept it (findings explicitly), list and remove. */
export function SkillsPage() {
  const skills = useLoad(
    () => client.request<{ skills: { name: string; description?: string }[] }>('GET', '/v1/admin/skills'),
    [],
  );
  const action = useAction();
  const [review, setReview] = useState<SkillUploadReview | undefined>();
  const [acceptFindings, setAcceptFindings] = useState(false);
  return (
    <div>
      <h1>Skills</h1>
      <FilePicker
        label="Upload a skill (.zip)"
        accept=".zip,application/zip"
        onFile={(file) =>
          void action.run(async () => {
            setAcceptFindings(false);
            setReview(
              await client.upload<SkillUploadReview>('/v1/admin/skills/uploads', file, {
                contentType: 'application/zip',
              }),
            );
          })
        }
      />
      {review ? (
        <section className="card" aria-label="Upload review">
          <h3>{review.name ?? 'Unnamed skill'}</h3>
          {review.problems.length > 0 ? (
            <>
              <h4>Problems</h4>
              <ul>
                {review.problems.map((problem) => (
                  <li key={`${problem.code}:${problem.entry ?? ''}`}>
                    {problem.code}: {problem.message}
                  </li>
                ))}
              </ul>
            </>
          ) : null}
          {review.findings.length > 0 ? (
            <>
              <h4>Scan findings</h4>
              <ul className="findings">
                {review.findings.map((finding, index) => (
                  // biome-ignore lint/suspicious/noArrayIndexKey: findings are a list
                  <li key={index}>{findingText(finding)}</li>
                ))}
              </ul>
              <label>
                <input
                  type="checkbox"
                  checked={acceptFindings}
                  onChange={(event) => setAcceptFindings(event.target.checked)}
                />{' '}
                I have read the findings and accept them
              </label>
            </>
          ) : (
            <p>No findings.</p>
          )}
          <ActionButton
            action={action}
            disabled={!review.acceptable || (review.findings.length > 0 && !acceptFindings)}
            run={async () => {
              await client.request('POST', `/v1/admin/skills/uploads/${review.uploadId}/accept`, {
                body: { acceptFindings, replace: true },
              });
              setReview(undefined);
              skills.reload();
              return `Stored ${review.name ?? 'the skill'}.`;
            }}
          >
            Accept skill
          </ActionButton>
        </section>
      ) : null}
      <Feedback error={action.error ?? skills.error} note={action.note} />
      <h3>Stored skills</h3>
      <ul>
        {(skills.value?.skills ?? []).map((skill) => (
          <li key={skill.name}>
            {skill.name}{' '}
            <DeleteButton
              action={action}
              aria-label={`Delete skill ${skill.name}`}
              path={`/v1/admin/skills/${encodeURIComponent(skill.name)}`}
              onDeleted={skills.reload}
            >
              Delete
            </DeleteButton>
          </li>
        ))}
      </ul>
    </div>
  );
}
