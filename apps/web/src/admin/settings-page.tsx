import type { settingsSchema } from '@toolbus/api-schema';
import type { WireShape } from '@toolbus/client';
import { useEffect, useState } from 'react';
import { ActionForm } from '../common/action-form.tsx';
import { client } from '../common/api.ts';
import { Feedback } from '../common/feedback.tsx';
import { useAction, useLoad } from '../common/use-load.ts';

type Settings = WireShape<typeof settingsSchema>;

const textFields = [
  ['model', 'Default model'],
  ['webSearchProvider', 'Web search provider'],
  ['imageProvider', 'Image provider'],
] as const;

/** Deployment settings. */
export function SettingsPage() {
  const loaded = useLoad(() => client.request<Settings>('GET', '/v1/admin/settings'), []);
  const action = useAction();
  const [settings, setSettings] = useState<Settings>({});
  useEffect(() => {
    if (loaded.value) setSettings(loaded.value);
  }, [loaded.value]);
  return (
    <div>
      <h1>Settings</h1>
      <ActionForm
        action={action}
        className="stack-form"
        submit="Save settings"
        onSubmit={async () => {
          const body: { -readonly [Field in keyof Settings]: Settings[Field] } = {};
          for (const [field] of textFields) body[field] = settings[field] ? settings[field] : null;
          body.memoryDefault = settings.memoryDefault ?? null;
          setSettings(await client.request<Settings>('PATCH', '/v1/admin/settings', { body }));
          return 'Settings saved.';
        }}
      >
        {textFields.map(([field, label]) => (
          <label key={field}>
            {label}{' '}
            <input
              value={settings[field] ?? ''}
              onChange={(event) => setSettings((current) => ({ ...current, [field]: event.target.value }))}
            />
          </label>
        ))}
        <label>
          <input
            type="checkbox"
            checked={settings.memoryDefault ?? false}
            onChange={(event) =>
              setSettings((current) => ({ ...current, memoryDefault: event.target.checked }))
            }
          />{' '}
          Memory on by default
        </label>
      </ActionForm>
      <Feedback error={action.error ?? loaded.error} note={action.note} />
    </div>
  );
}
