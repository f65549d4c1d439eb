/**
 * The keys: name, prefix and last four characters, resources granted, created, expires, last used,
 * status. Search by name; sort by name, creation or last use.
 */
import { useMemo, useRef, useState } from 'react';
import { Box, Flex, Link, Searchbar, Table, Tbody, Td, Th, Thead, Tr, Typography, VisuallyHidden } from '@strapi/design-system';
import { CaretDown, CaretUp, Trash } from '@strapi/icons';
import { useNotification } from '@strapi/strapi/admin';
import { NavLink } from 'react-router-dom';
import type { AdminKey } from '../../../../shared/contracts/keys';
import { useAdminApi } from '../../api/client';
import { useAdminQuery } from '../../api/useAdminQuery';
import { ListLayout } from '../../components/ListLayout';
import { ApiTokensNote } from '../../components/ApiTokensNote';
import { ConfirmButton } from '../../components/ConfirmButton';
import { DateText } from '../../components/DateText';
import { KeyStatus } from '../../components/KeyStatus';
import { usePermissions } from '../../hooks/usePermissions';
import { Mono } from '../../components/Mono';
import { useT } from '../../hooks/useT';
import { useRefusal } from '../../hooks/useRefusal';
import { sortKeys, type KeySort } from './sortKeys';

/**
 * Cells whose text may wrap (the design system's cells do not): at 1280 px the eight columns were wider
 * than the card, and the table scrolled its delete buttons out of view. A header, a date or "2 resources"
 * on two lines, and the key broken after its prefix, keep every column in the card.
 */
const WRAPS = { whiteSpace: 'normal' } as const;
/** A date is read at a glance on one line ("Dec 7, 2026", "3 hours ago"): it never wraps, other columns give way. */
const ONE_LINE = { whiteSpace: 'nowrap' } as const;

const SortHeader = ({
  label,
  column,
  sort,
  onSort,
}: {
  label: string;
  column: KeySort['column'];
  sort: KeySort;
  onSort: (sort: KeySort) => void;
}) => {
  const t = useT();
  const active = sort.column === column;
  const next: KeySort = { column, direction: active && sort.direction === 'asc' ? 'desc' : 'asc' };
  return (
    // The design system's header cell is a grid cell, where aria-sort is not allowed: the button says the order.
    <Th style={WRAPS}>
      <Flex
        tag="button"
        type="button"
        gap={1}
        onClick={() => onSort(next)}
        style={{ background: 'none', border: 0, padding: 0, cursor: 'pointer', textAlign: 'left' }}
      >
        <Typography variant="sigma" textColor={active ? 'neutral800' : 'neutral600'}>
          {label}
        </Typography>
        {active && (
          <VisuallyHidden>
            {sort.direction === 'asc' ? t('keys.sorted.asc', ', sorted ascending') : t('keys.sorted.desc', ', sorted descending')}
          </VisuallyHidden>
        )}
        {active && (sort.direction === 'asc' ? <CaretUp aria-hidden width="1rem" /> : <CaretDown aria-hidden width="1rem" />)}
      </Flex>
    </Th>
  );
};

const CLAMP_TWO_LINES = { display: '-webkit-box', WebkitLineClamp: 2, WebkitBoxOrient: 'vertical', overflow: 'hidden' } as const;

const resourcesLabel = (key: AdminKey): string[] =>
  Object.entries(key.grants.resources)
    .filter(([, grant]) => grant.actions.length > 0)
    .map(([id]) => id);

export const ListPage = () => {
  const t = useT();
  const api = useAdminApi();
  const { toggleNotification } = useNotification();
  const refuse = useRefusal();
  const { canCreate, canDelete } = usePermissions();
  const keys = useAdminQuery('listKeys', {}, { select: (res) => res.data });
  const [query, setQuery] = useState('');
  const [sort, setSort] = useState<KeySort>({ column: 'name', direction: 'asc' });

  const rows = useMemo(() => sortKeys(keys.data ?? [], query, sort), [keys.data, query, sort]);

  // The row a deleted key had: its dialog's button is gone with it, so the focus goes to the key now in its
  // place (or the last one), or to "Create a key" when none is left; a refused delete keeps it on the button.
  const deletedRow = useRef<number | null>(null);
  const focusAfterDelete = () => {
    const index = deletedRow.current;
    deletedRow.current = null;
    if (index === null) return null;
    const links = document.querySelectorAll<HTMLElement>('[data-testid="keys-table"] tbody tr td:first-child a');
    return links[Math.min(index, links.length - 1)] ?? document.querySelector<HTMLElement>('[data-testid="create-key"]');
  };

  const remove = async (key: AdminKey, row: number) => {
    try {
      await api.deleteKey({ params: { id: key.id } });
      toggleNotification({ type: 'success', message: t('keys.deleted', 'The key {name} is deleted.', { name: key.name }) });
      deletedRow.current = row;
      await keys.reload();
    } catch (error) {
      refuse(error);
    }
  };

  return (
    <ListLayout
      loaded={keys}
      text={{
        pageTitle: t('keys.pageTitle', 'Public Data API keys'),
        title: t('keys.title', 'API keys'),
        subtitle: t('keys.subtitle', 'Keys let websites and apps read and write content through the Public Data API at /api/v2.'),
        empty: t('keys.empty', 'No API keys yet. Create one for each website or app that uses the API.'),
      }}
      create={canCreate ? { label: t('keys.create', 'Create a key'), testId: 'create-key' } : null}
      note={
        <Box paddingBottom={4}>
          <ApiTokensNote />
        </Box>
      }
    >
      <Flex direction="column" alignItems="stretch" gap={4}>
        <Box width="32rem">
          <Searchbar
            name="search-keys"
            value={query}
            onChange={(e) => setQuery(e.target.value)}
            onClear={() => setQuery('')}
            clearLabel={t('keys.search.clear', 'Clear the search')}
            placeholder={t('keys.search.placeholder', 'Search by name')}
          >
            {t('keys.search', 'Search keys by name')}
          </Searchbar>
        </Box>
        <Table colCount={7} rowCount={rows.length + 1} data-testid="keys-table">
          <Thead>
            <Tr>
              <SortHeader label={t('keys.column.name', 'Name')} column="name" sort={sort} onSort={setSort} />
              <Th style={WRAPS}>
                <Typography variant="sigma" textColor="neutral600">
                  {t('keys.column.resources', 'Resources')}
                </Typography>
              </Th>
              <SortHeader label={t('keys.column.created', 'Created')} column="createdAt" sort={sort} onSort={setSort} />
              <Th style={WRAPS}>
                <Typography variant="sigma" textColor="neutral600">
                  {t('keys.column.expires', 'Expires')}
                </Typography>
              </Th>
              <SortHeader label={t('keys.column.lastUsed', 'Last used')} column="lastUsedAt" sort={sort} onSort={setSort} />
              <Th style={WRAPS}>
                <Typography variant="sigma" textColor="neutral600">
                  {t('keys.column.status', 'Status')}
                </Typography>
              </Th>
              <Th>
                <VisuallyHidden>{t('keys.column.actions', 'Actions')}</VisuallyHidden>
              </Th>
            </Tr>
          </Thead>
          <Tbody>
            {rows.map((key, row) => {
              const granted = resourcesLabel(key);
              return (
                <Tr key={key.id} data-testid={`key-row-${key.id}`}>
                  {/* Long names wrap and descriptions stop after two lines, inside the column (title: the whole text).
                          The width is the column's preferred one: without it a long name takes the room of the others,
                          which then wrap at 1440 px too. The key's prefix sits under its name (a column of its own
                          left too little room at 1280 px: the dates wrapped onto two and three lines). */}
                  <Td style={{ whiteSpace: 'normal', width: '12rem' }}>
                    <Flex direction="column" alignItems="stretch" gap={1} style={{ overflowWrap: 'anywhere' }}>
                      <Link tag={NavLink} to={String(key.id)}>
                        {key.name}
                      </Link>
                      {/* Broken only between the prefix and the last four characters, when the column is narrow. */}
                      <Mono variant="pi" textColor="neutral700" data-testid="key-row-prefix">
                        <span style={{ whiteSpace: 'nowrap' }}>{`${key.prefix}_`}</span>
                        <wbr />
                        <span style={{ whiteSpace: 'nowrap' }}>{`…${key.lastFour}`}</span>
                      </Mono>
                      {key.description && (
                        <Typography variant="pi" textColor="neutral600" title={key.description} style={CLAMP_TWO_LINES}>
                          {key.description}
                        </Typography>
                      )}
                    </Flex>
                  </Td>
                  <Td style={WRAPS}>
                    <Typography textColor="neutral800" title={granted.join('\n')}>
                      {granted.length === 0
                        ? t('keys.resources.none', 'None')
                        : t('keys.resources.count', '{count, plural, one {# resource} other {# resources}}', { count: granted.length })}
                    </Typography>
                  </Td>
                  <Td style={ONE_LINE}>
                    <DateText value={key.createdAt} />
                  </Td>
                  <Td style={ONE_LINE}>
                    <DateText value={key.expiresAt} empty={t('keys.expires.never', 'Never')} />
                  </Td>
                  <Td style={ONE_LINE}>
                    <DateText value={key.lastUsedAt} relative empty={t('keys.lastUsed.never', 'Never used')} />
                  </Td>
                  <Td>
                    <KeyStatus apiKey={key} />
                  </Td>
                  <Td>
                    <Flex gap={1} justifyContent="end">
                      {canDelete && (
                        <DeleteKeyButton name={key.name} onConfirm={() => remove(key, row)} focusAfterClose={focusAfterDelete} />
                      )}
                    </Flex>
                  </Td>
                </Tr>
              );
            })}
          </Tbody>
        </Table>
        {rows.length === 0 && (
          <Typography textColor="neutral600">{t('keys.search.none', 'No key matches “{query}”.', { query })}</Typography>
        )}
      </Flex>
    </ListLayout>
  );
};

/** Delete from the list: an icon that opens the confirmation. */
const DeleteKeyButton = ({
  name,
  onConfirm,
  focusAfterClose,
}: {
  name: string;
  onConfirm: () => Promise<void>;
  focusAfterClose: () => HTMLElement | null;
}) => {
  const t = useT();
  return (
    <ConfirmButton
      iconOnly
      label={t('keys.delete.label', 'Delete {name}', { name })}
      icon={<Trash />}
      title={t('key.delete.title', 'Delete {name}?', { name })}
      body={t('key.delete.body', 'Requests with this key are refused at once, and the key cannot be restored.')}
      confirmLabel={t('key.delete.confirm', 'Delete the key')}
      confirmVariant="danger"
      onConfirm={onConfirm}
      focusAfterClose={focusAfterClose}
    />
  );
};
