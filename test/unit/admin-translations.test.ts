/**
 * Every string of the plugin's admin goes through the translations: each message id used in the
 * sources has an English default in translations/en.json, equal to the default in the code, and
 * en.json holds no message the code no longer uses. (No browser needed; it lives with the admin's tests.)
 */
import fs from 'node:fs';
import path from 'node:path';

const ADMIN_SRC = path.resolve(__dirname, '..', '..', 'src', 'plugins', 'public-api', 'admin', 'src');

const sources = (dir: string): string[] =>
  fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return sources(full);
    return /\.(ts|tsx)$/.test(entry.name) ? [full] : [];
  });

const MESSAGE_PATTERNS = [
  /\bt\(\s*'([^']+)',\s*'((?:[^'\\]|\\.)*)'/g,
  /getTranslation\('([^']+)'\),\s*defaultMessage:\s*'((?:[^'\\]|\\.)*)'/g,
];

const messagesInCode = (): Map<string, string> => {
  const messages = new Map<string, string>();
  for (const file of sources(ADMIN_SRC)) {
    const text = fs.readFileSync(file, 'utf8');
    for (const pattern of MESSAGE_PATTERNS) {
      for (const match of text.matchAll(pattern)) {
        const [, id, message] = match as unknown as [string, string, string];
        const unescaped = message.replace(/\\'/g, "'");
        const known = messages.get(id);
        if (known !== undefined && known !== unescaped) throw new Error(`Message '${id}' has two defaults: '${known}' and '${unescaped}'.`);
        messages.set(id, unescaped);
      }
    }
  }
  return messages;
};

test('en.json holds exactly the messages the admin uses, with the same English defaults', () => {
  const english = JSON.parse(fs.readFileSync(path.join(ADMIN_SRC, 'translations', 'en.json'), 'utf8')) as Record<string, string>;
  const code = messagesInCode();
  expect(code.size).toBeGreaterThan(150);
  expect(Object.fromEntries([...code].sort(([a], [b]) => a.localeCompare(b)))).toEqual(english);
});

test('no formatMessage call bypasses the plugin’s messages', () => {
  const offenders = sources(ADMIN_SRC).filter((file) => {
    const text = fs.readFileSync(file, 'utf8');
    // formatMessage is allowed only with getTranslation ids (useT and TagsInput).
    return [...text.matchAll(/formatMessage\(\s*\{\s*id:(?!\s*getTranslation\()/g)].length > 0;
  });
  expect(offenders).toEqual([]);
});
