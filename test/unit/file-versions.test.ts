/**
 * Which writes to an upload file count as new content (services/file-versions): the media library's
 * replace writes content columns; its metadata edits write none.
 */
import { changesContent } from '../../src/plugins/public-api/server/src/services/file-versions';

test('a replace (new size, formats, dimensions) changes the content', () => {
  expect(
    changesContent({ size: 1.2, width: 8, height: 16, formats: {}, mime: 'image/png', hash: 'h', ext: '.png', url: '/uploads/h.png' }),
  ).toBe(true);
  for (const column of ['hash', 'url', 'size', 'mime', 'ext', 'width', 'height', 'formats', 'provider']) {
    expect(changesContent({ [column]: null })).toBe(true);
  }
});

test('metadata edits (name, alt text, caption, focal point, folder) do not', () => {
  expect(changesContent({ name: 'x.png', alternativeText: 'a', caption: 'c', focalPoint: null, folder: 3, folderPath: '/1' })).toBe(false);
  expect(changesContent({})).toBe(false);
  expect(changesContent(undefined)).toBe(false);
  expect(changesContent({ size: undefined })).toBe(false);
});
