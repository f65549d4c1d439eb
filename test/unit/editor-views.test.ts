/**
 * What editors see: the labels of the content manager's stored configuration, and the Page list's website
 * column added only to a list nobody arranged. Pure.
 */
import { editorLabelsOf } from '../../src/plugins/public-api/server/src/registry/editor-labels';
import { generatedList, withWebsiteColumn } from '../../src/editor/page-list';

test('labels an admin set are taken; bare field names and broken configurations are not', () => {
  const stored = JSON.stringify({
    metadatas: {
      startsAt: { edit: { label: 'Starts at (local time)' }, list: { label: 'Start' } },
      title: { edit: { label: 'title' } },
      summary: { edit: { label: '  ' } },
      venue: {},
    },
  });
  expect(editorLabelsOf(stored)).toEqual({ startsAt: 'Starts at (local time)' });
  expect(editorLabelsOf({ metadatas: { name: { edit: { label: 'Product name' } } } })).toEqual({ name: 'Product name' });
  expect(editorLabelsOf('{not json')).toEqual({});
  expect(editorLabelsOf(null)).toEqual({});
});

test('the Page list gets its website column only while it is the generated one', () => {
  const model = {
    uid: 'api::page.page',
    attributes: {
      id: { type: 'integer' },
      documentId: { type: 'string' },
      title: { type: 'string' },
      body: { type: 'blocks' },
      slug: { type: 'string' },
      sort: { type: 'integer' },
      summary: { type: 'text' },
      website: { type: 'relation', relation: 'manyToOne' },
    },
  };
  const generated = generatedList(model);
  expect(generated).toEqual(['id', 'title', 'slug', 'sort']);
  expect(withWebsiteColumn(generated, generated)).toEqual(['id', 'title', 'website', 'slug', 'sort']);
  // Arranged by an admin (or already given the column once): left alone.
  expect(withWebsiteColumn(['title', 'summary'], generated)).toBeNull();
  expect(withWebsiteColumn(['id', 'title', 'website', 'slug', 'sort'], generated)).toBeNull();
});
