import { coerceParameterValue } from './coerce-parameter-value.ts';
import { isPlainObject } from './parse-tool-arguments.ts';
import { decodeXmlEntities } from './text-search.ts';

/** MiniMax M3's namespace token, written before every tag of its calls (`]<]minimax[>[<invoke name="x">`). */
export const miniMaxNamespaceToken = ']<]minimax[>[';

interface Element {
  readonly name: string;
  readonly children: Element[];
  text: string;
}

/** A name an element may have here: `city`, `get_weather` (one rule for the children and the tool-tag dialect). */
const elementName = '[A-Za-z_][\\w.-]{0,63}';
const wholeElementName = new RegExp(`^${elementName}$`);
export const isElementName = (name: string): boolean => wholeElementName.test(name);

// A tag without attributes: `<city>`, `</city>`.
const tagPattern = new RegExp(`<(\\/?)(${elementName})\\s*>`, 'g');

/**
 * Arguments written as child elements of the call (MiniMax M3's chat template, its `to_xml` macro: a mapping is
 * `<key>value</key>` children, a list is `<item>value</item>` children, a scalar is its text; vLLM's minimax_m3
 * parser, mlx-lm #1416): `<city>Oslo</city><days>3</days>`. Leaves are typed by the tool's schema (nested
 * objects and lists by theirs); a key written twice becomes a list. Undefined when `body` holds no element.
 */
export function childElementArguments(
  body: string,
  schema: Record<string, unknown> | undefined,
): Record<string, unknown> | undefined {
  const text = body.includes(miniMaxNamespaceToken) ? body.replaceAll(miniMaxNamespaceToken, '') : body;
  const root: Element = { name: '', children: [], text: '' };
  const stack: Element[] = [root];
  let at = 0;
  tagPattern.lastIndex = 0;
  for (let match = tagPattern.exec(text); match; match = tagPattern.exec(text)) {
    const top = stack[stack.length - 1]!;
    top.text += text.slice(at, match.index);
    at = match.index + match[0].length;
    if (match[1] === '') {
      if (stack.length > 32) return undefined;
      const element: Element = { name: match[2]!, children: [], text: '' };
      top.children.push(element);
      stack.push(element);
    } else if (top.name === match[2] && stack.length > 1) stack.pop();
  }
  if (root.children.length === 0) return undefined;
  const value = objectOf(root.children, schema);
  return isPlainObject(value) ? (value as Record<string, unknown>) : undefined;
}

function elementValue(element: Element, schema: Record<string, unknown> | undefined): unknown {
  if (element.children.length === 0)
    return coerceParameterValue(decodeXmlEntities(element.text.trim()), { schema });
  if (element.children.every((child) => child.name === 'item')) {
    const items = isPlainObject(schema?.items) ? (schema.items as Record<string, unknown>) : undefined;
    return element.children.map((child) => elementValue(child, items));
  }
  return objectOf(element.children, schema);
}

function objectOf(children: readonly Element[], schema: Record<string, unknown> | undefined): unknown {
  const properties = isPlainObject(schema?.properties)
    ? (schema.properties as Record<string, Record<string, unknown>>)
    : {};
  const values = new Map<string, unknown[]>();
  for (const child of children) {
    const list = values.get(child.name) ?? [];
    list.push(
      elementValue(child, Object.hasOwn(properties, child.name) ? properties[child.name] : undefined),
    );
    values.set(child.name, list);
  }
  const object: Record<string, unknown> = {};
  for (const [key, list] of values) object[key] = list.length === 1 ? list[0] : list;
  return object;
}
