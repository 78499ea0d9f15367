// Every relative link in the README and docs/ leads to a file of the repository (the README's CLI link led
// to a cli.md beside it, which does not exist).
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';
import { ROOT } from './helpers/daemon';

/** Markdown link targets in `text` that are not URLs or anchors in the same page. */
function relativeLinks(text: string): string[] {
  const links = [...text.matchAll(/\]\(([^)\s]+)\)/g)].map((m) => m[1]);
  return links.filter((link) => !/^[a-z][a-z+.-]*:/i.test(link) && !link.startsWith('#'));
}

test('every relative link in README.md and docs/*.md leads to a file', () => {
  const pages = ['README.md', ...fs.readdirSync(path.join(ROOT, 'docs')).filter((f) => f.endsWith('.md'))].map((f) =>
    f === 'README.md' ? f : path.join('docs', f),
  );
  const broken: string[] = [];
  for (const page of pages) {
    const text = fs.readFileSync(path.join(ROOT, page), 'utf8');
    for (const link of relativeLinks(text)) {
      const target = path.resolve(ROOT, path.dirname(page), decodeURIComponent(link.split('#')[0]));
      if (!fs.existsSync(target)) broken.push(`${page}: ${link}`);
    }
  }
  assert.deepEqual(broken, []);
});
