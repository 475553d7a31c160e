/**
 * Reads the import specifiers of a TypeScript or JavaScript source: static imports and re-exports
 * (runtime ones only: `import type …` and imports whose every name is `type X` are erased by tsc)
 * and `import('…')` with a literal specifier. A regular-expression reader, good for this code base's
 * style (imports at the top of a line); the tests that use it check the real files.
 */
import { readFileSync } from 'node:fs';

export interface SourceImports {
  /** Specifiers of static imports and re-exports that survive compilation. */
  static: string[];
  /** Specifiers of `import('…')` calls. */
  dynamic: string[];
  /** Specifiers of type-only imports (erased). */
  typeOnly: string[];
}

const STATIC = /^[ \t]*(import|export)\s+(type\s+)?([^'";]*?)\s*from\s*['"]([^'"]+)['"]/gm;
const SIDE_EFFECT = /^[ \t]*import\s*['"]([^'"]+)['"]/gm;
const DYNAMIC = /\bimport\(\s*['"]([^'"]+)['"]\s*\)/g;

function allTypes(clause: string): boolean {
  const named = /^\{([\s\S]*)\}$/.exec(clause.trim());
  if (!named) return false;
  const names = named[1]!.split(',').map((part) => part.trim()).filter(Boolean);
  return names.length > 0 && names.every((name) => name.startsWith('type '));
}

export function readImports(path: string): SourceImports {
  // Block and line comments out, so examples in doc comments are not read as imports.
  const text = readFileSync(path, 'utf8').replace(/\/\*[\s\S]*?\*\//g, '').replace(/^\s*\/\/.*$/gm, '');
  const result: SourceImports = { static: [], dynamic: [], typeOnly: [] };
  for (const match of text.matchAll(STATIC)) {
    const [, , typeKeyword, clause, specifier] = match;
    if (typeKeyword || allTypes(clause!)) result.typeOnly.push(specifier!);
    else result.static.push(specifier!);
  }
  for (const match of text.matchAll(SIDE_EFFECT)) result.static.push(match[1]!);
  for (const match of text.matchAll(DYNAMIC)) result.dynamic.push(match[1]!);
  return result;
}

/** `@scope/name/sub` → `@scope/name`, `name/sub` → `name`; null for relative and `node:` specifiers. */
export function packageName(specifier: string): string | null {
  if (specifier.startsWith('.') || specifier.startsWith('/') || specifier.startsWith('node:')) return null;
  const parts = specifier.split('/');
  return specifier.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0]!;
}
