// The pure parts of knowing which tabs are on screen: split groups only ever merge, and typing is noted per tab.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { TerminalGroups } from '../src/extension/terminalGroups';
import { TYPING_MS, WindowTyping } from '../src/extension/windowTyping';

test('terminal groups merge, whole, and forget a closed terminal', () => {
  const groups = new TerminalGroups<string>();
  assert.equal(groups.together('a', 'a'), true);
  assert.equal(groups.together('a', 'b'), false, 'nothing known: apart');
  groups.join('a', 'b');
  groups.join('c', 'd');
  assert.equal(groups.together('a', 'c'), false);
  groups.join('b', 'c');
  assert.equal(groups.together('a', 'd'), true, 'a join merges both groups whole');
  groups.forget('d');
  assert.equal(groups.together('a', 'd'), false);
  assert.equal(groups.together('a', 'c'), true);
});

test('typing is noted with its tab, and ends TYPING_MS after the last key', () => {
  const clock = { ms: 0 };
  const typing = new WindowTyping(() => clock.ms);
  assert.equal(typing.typing, false);
  typing.typed('one');
  assert.equal(typing.elsewhere('one'), false);
  assert.equal(typing.elsewhere('two'), true);
  clock.ms += TYPING_MS;
  assert.equal(typing.typing, false);
  assert.equal(typing.elsewhere('two'), false);
});
