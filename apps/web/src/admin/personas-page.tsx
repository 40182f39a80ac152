import { useEffect, useState } from 'react';
import { ActionForm } from '../common/action-form.tsx';
import { client } from '../common/api.ts';
import { DeleteButton } from '../common/delete-button.tsx';
import { Feedback } from '../common/feedback.tsx';
import { FilePicker } from '../common/file-picker.tsx';
import { useAction, useLoad } from '../common/use-load.ts';

interface Persona {
  readonly id: string;
  readonly name: string;
  readonly description: string;
}
interface ToolRow {
  readonly id: string;
  readonly source: {
    readonly kind: string;
    readonly builtInId?: string;
    readonly name?: string;
    readonly toolName?: string;
    readonly serverId?: string;
  };
}

function rowLabel(row: ToolRow, builtIns: readonly BuiltInTool[]): string {
  const builtIn = builtIns.find((tool) => tool.id === row.source.builtInId);
  return builtIn?.displayName ?? row.source.builtInId ?? row.source.name ?? row.source.toolName ?? row.id;
}

/** A built-in tool a persona can switch on, as the server's one table lists it. */
interface BuiltInTool {
  readonly id: string;
  readonly name: string;
  /** The name the chat shows for it. */
  readonly displayName: string;
  /** This deployment can run it. */
  readonly available: boolean;
}

const loadBuiltIns = () => client.request<{ tools: BuiltInTool[] }>('GET', '/v1/admin/built-in-tools');

interface McpServerOption {
  readonly id: string;
  readonly name: string;
}

/** Renames a persona and edits its description. */
function PersonaDetails(props: { readonly persona: Persona; readonly onSaved: () => void }) {
  const action = useAction();
  const [name, setName] = useState(props.persona.name);
  const [description, setDescription] = useState(props.persona.description);
  return (
    <>
      <ActionForm
        action={action}
        className="inline-form"
        aria-label={`Edit ${props.persona.name}`}
        submit="Save persona"
        onSubmit={async () => {
          await client.request('PATCH', `/v1/admin/personas/${props.persona.id}`, {
            body: { name, description },
          });
          props.onSaved();
          return `Saved ${name}.`;
        }}
      >
        <label>
          Retitle as <input value={name} onChange={(event) => setName(event.target.value)} required />
        </label>
        <label>
          Describe as <input value={description} onChange={(event) => setDescription(event.target.value)} />
        </label>
      </ActionForm>
      <Feedback error={action.error} note={action.note} />
    </>
  );
}

/** Adds one tool of an MCP server as a row of the persona. */
function AddMcpTool(props: { readonly personaId: string; readonly onAdded: () => void }) {
  const servers = useLoad(
    () => client.request<{ servers: McpServerOption[] }>('GET', '/v1/admin/mcp-servers'),
    [],
  );
  const action = useAction();
  const [serverId, setServerId] = useState('');
  const [toolName, setToolName] = useState('');
  const options = servers.value?.servers ?? [];
  if (options.length === 0) return null;
  return (
    <>
      <ActionForm
        action={action}
        className="inline-form"
        submit="Add MCP tool"
        onSubmit={async () => {
          await client.request('POST', `/v1/admin/personas/${props.personaId}/tools`, {
            body: { kind: 'mcp', serverId: serverId || options[0]?.id, toolName },
          });
          setToolName('');
          props.onAdded();
          return `Added ${toolName}.`;
        }}
      >
        <label>
          MCP server{' '}
          <select value={serverId} onChange={(event) => setServerId(event.target.value)}>
            {options.map((server) => (
              <option key={server.id} value={server.id}>
                {server.name}
              </option>
            ))}
          </select>
        </label>
        <label>
          MCP tool <input value={toolName} onChange={(event) => setToolName(event.target.value)} required />
        </label>
      </ActionForm>
      <Feedback error={action.error ?? servers.error} note={action.note} />
    </>
  );
}

function PersonaTools(props: { readonly persona: Persona; readonly onChanged: () => void }) {
  const detail = useLoad(
    () =>
      client.request<{ persona: Persona; tools: ToolRow[] }>('GET', `/v1/admin/personas/${props.persona.id}`),
    [props.persona.id],
  );
  // The ids come from the server (core's table): the page keeps no copy that could drift.
  const builtInTools = useLoad(loadBuiltIns, []);
  const known = builtInTools.value?.tools ?? [];
  const action = useAction();
  const [produced, setProduced] = useState<string[]>([]);
  const rows = detail.value?.tools ?? [];
  const builtIns = new Map(
    rows.filter((row) => row.source.kind === 'built-in').map((row) => [row.source.builtInId, row.id]),
  );
  // The switch shows the user's choice at once, while the change is saved; the server's rows replace it on reload
  // (and put it back if saving failed).
  const [chosen, setChosen] = useState<ReadonlyMap<string, boolean>>(new Map());
  useEffect(() => {
    if (detail.value !== undefined) setChosen(new Map());
  }, [detail.value]);
  const toggle = (id: string, on: boolean) =>
    action.run(async () => {
      setChosen((current) => new Map(current).set(id, on));
      const rowId = builtIns.get(id);
      try {
        if (on)
          await client.request('POST', `/v1/admin/personas/${props.persona.id}/tools`, {
            body: { kind: 'built-in', builtIn: id },
          });
        else if (rowId)
          await client.request('DELETE', `/v1/admin/personas/${props.persona.id}/tools/${rowId}`);
      } finally {
        detail.reload();
      }
    });
  const uploadOpenApi = (file: File) =>
    action.run(async () => {
      const document = JSON.parse(await file.text()) as unknown;
      const row = await client.request<{ name?: string; operations: number }>(
        'POST',
        `/v1/admin/personas/${props.persona.id}/tools`,
        { body: { kind: 'openapi', name: file.name.replace(/\.json$/, ''), document } },
      );
      setProduced((current) => [...current, `${row.name ?? file.name}: ${row.operations} operation(s)`]);
      detail.reload();
      return `Added ${row.operations} tool(s) from ${file.name}.`;
    });
  return (
    <section className="card" aria-labelledby={`persona-${props.persona.id}`}>
      <h3 id={`persona-${props.persona.id}`}>{props.persona.name}</h3>
      <p>{props.persona.description}</p>
      <PersonaDetails persona={props.persona} onSaved={props.onChanged} />
      <fieldset>
        <legend>Built-in tools</legend>
        {known.map(({ id, displayName, available }) => (
          <span key={id} className="switch">
            <label>
              <input
                type="checkbox"
                checked={chosen.get(id) ?? builtIns.has(id)}
                onChange={(event) => void toggle(id, event.target.checked)}
                {...(available ? {} : { 'aria-describedby': `${props.persona.id}-${id}-off` })}
              />{' '}
              {displayName}
            </label>
            {available ? null : (
              <span id={`${props.persona.id}-${id}-off`} className="muted">
                {' '}
                (not set up on this server)
              </span>
            )}
          </span>
        ))}
      </fieldset>
      <FilePicker
        label="Upload an OpenAPI document (JSON)"
        accept="application/json,.json"
        onFile={(file) => void uploadOpenApi(file)}
      />
      {produced.length > 0 ? (
        <ul aria-label="Tools it produced" className="produced">
          {produced.map((name) => (
            <li key={name}>{name}</li>
          ))}
        </ul>
      ) : null}
      <AddMcpTool personaId={props.persona.id} onAdded={detail.reload} />
      <h4>Tool rows</h4>
      <ul>
        {rows.map((row) => (
          <li key={row.id}>
            {row.source.kind}: {rowLabel(row, known)}{' '}
            <DeleteButton
              action={action}
              aria-label={`Remove ${rowLabel(row, known)}`}
              path={`/v1/admin/personas/${props.persona.id}/tools/${row.id}`}
              onDeleted={detail.reload}
            >
              Remove
            </DeleteButton>
          </li>
        ))}
      </ul>
      <Feedback error={action.error ?? detail.error} note={action.note} />
    </section>
  );
}

/** Personas and their tools: create, rename, switch built-ins, upload OpenAPI documents, add MCP tools. */
export function PersonasPage() {
  const list = useLoad(() => client.request<{ personas: Persona[] }>('GET', '/v1/admin/personas'), []);
  const action = useAction();
  const [name, setName] = useState('');
  const [description, setDescription] = useState('');
  return (
    <div>
      <h1>Personas and tools</h1>
      <ActionForm
        action={action}
        className="inline-form"
        submit="Create persona"
        onSubmit={async () => {
          const created = await client.request<{ id: string }>('POST', '/v1/admin/personas', {
            body: { name, description },
          });
          // A new persona starts with the built-ins this deployment can run switched on.
          const available = (await loadBuiltIns()).tools.filter((tool) => tool.available);
          for (const tool of available) {
            await client.request('POST', `/v1/admin/personas/${created.id}/tools`, {
              body: { kind: 'built-in', builtIn: tool.id },
            });
          }
          setName('');
          setDescription('');
          list.reload();
          return `Created ${name}.`;
        }}
      >
        <label>
          Name <input value={name} onChange={(event) => setName(event.target.value)} required />
        </label>
        <label>
          Description <input value={description} onChange={(event) => setDescription(event.target.value)} />
        </label>
      </ActionForm>
      <Feedback error={action.error ?? list.error} note={action.note} />
      {(list.value?.personas ?? []).map((persona) => (
        <PersonaTools key={persona.id} persona={persona} onChanged={list.reload} />
      ))}
    </div>
  );
}
