import type { TurnTree } from '../turn/turn-tree.ts';

/**
 * The tools this turn's persona has that the model was not offered because no provider would accept them (an MCP
 * tool whose input schema cannot be normalised), each with why: the turn's `tool-mode` note, shown above the turn's
 * work so a missing tool is explained where its calls would be. The names and reasons come from MCP servers
 * (untrusted): shown as text only.
 */
export function SetAsideTools(props: { readonly toolMode: TurnTree['toolMode'] }) {
  const setAside = props.toolMode?.setAside ?? [];
  if (setAside.length === 0) return null;
  return (
    <section className="set-aside-tools" aria-label="Tools set aside">
      <details>
        <summary>
          {setAside.length === 1 ? '1 tool set aside' : `${setAside.length} tools set aside`}: no model
          provider accepts {setAside.length === 1 ? 'its' : 'their'} input schema
        </summary>
        <ul>
          {setAside.map((tool) => (
            <li key={tool.name}>
              <code>{tool.name}</code>: {tool.reason}
            </li>
          ))}
        </ul>
      </details>
    </section>
  );
}
