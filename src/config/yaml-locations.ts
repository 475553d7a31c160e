/** Finds where a key path sits in a YAML document, as line:column, for error messages. */
import { isMap, isScalar, isSeq, type Document, type LineCounter, type Node } from 'yaml';

export interface Location {
  line: number;
  column: number;
}

export interface Located {
  /** The value node at the path, or the deepest ancestor that exists. */
  node: Node | null;
  /** The key node when the last segment is a map key that exists. */
  keyNode: Node | null;
  /** How many segments of the path exist in the document. */
  depth: number;
}

export function locate(doc: Document, path: (string | number)[]): Located {
  let node = doc.contents as Node | null;
  let keyNode: Node | null = null;
  let depth = 0;
  for (const segment of path) {
    if (isMap(node)) {
      const pair = node.items.find((item) => isScalar(item.key) && String(item.key.value) === String(segment));
      if (!pair) break;
      keyNode = pair.key as Node;
      node = (pair.value as Node | null) ?? keyNode;
    } else if (isSeq(node) && typeof segment === 'number' && node.items[segment]) {
      keyNode = null;
      node = node.items[segment] as Node;
    } else {
      break;
    }
    depth += 1;
  }
  return { node, keyNode: depth === path.length ? keyNode : null, depth };
}

export function positionOf(node: Node | null, lineCounter: LineCounter): Location {
  const offset = node?.range?.[0] ?? 0;
  const { line, col } = lineCounter.linePos(offset);
  return { line, column: col };
}

/** `['workspaces', 0, 'auth']` → `workspaces[0].auth`. */
export function formatPath(path: (string | number | symbol)[]): string {
  let out = '';
  for (const part of path) {
    if (typeof part === 'number') out += `[${part}]`;
    else out += out ? `.${String(part)}` : String(part);
  }
  return out || '(top level)';
}
