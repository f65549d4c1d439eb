/**
 * The websites and what each publishes.
 */
import { Flex, IconButton, Link, Table, Tbody, Td, Th, Thead, Tr, Typography, VisuallyHidden } from '@strapi/design-system';
import { Pencil, Trash } from '@strapi/icons';
import { useNotification } from '@strapi/strapi/admin';
import { NavLink, useNavigate } from 'react-router-dom';
import type { AdminWebsite } from '../../../../shared/contracts/websites';
import { useAdminApi } from '../../api/client';
import { useAdminQuery } from '../../api/useAdminQuery';
import { ListLayout } from '../../components/ListLayout';
import { ConfirmButton } from '../../components/ConfirmButton';
import { DateText } from '../../components/DateText';
import { usePermissions } from '../../hooks/usePermissions';
import { useT } from '../../hooks/useT';
import { useRefusal } from '../../hooks/useRefusal';

export const ListPage = () => {
  const t = useT();
  const api = useAdminApi();
  const navigate = useNavigate();
  const { toggleNotification } = useNotification();
  const refuse = useRefusal();
  const { canCreate, canUpdate, canDelete } = usePermissions();
  const websites = useAdminQuery('listWebsites', {}, { select: (res) => res.data });

  const remove = async (website: AdminWebsite) => {
    try {
      await api.deleteWebsite({ params: { id: website.id } });
      toggleNotification({ type: 'success', message: t('websites.deleted', 'The website {name} is deleted.', { name: website.name }) });
      await websites.reload();
    } catch (error) {
      refuse(error);
    }
  };

  const rows = websites.data ?? [];

  return (
    <ListLayout
      loaded={websites}
      text={{
        pageTitle: t('websites.pageTitle', 'Public Data API websites'),
        title: t('websites.title', 'Websites'),
        subtitle: t('websites.subtitle', 'Each website publishes content types under /api/v2/cms/<website>/<collection>.'),
        empty: t('websites.empty', 'No websites yet. Add one to publish its pages and settings through the API.'),
      }}
      create={canCreate ? { label: t('websites.create', 'Add a website') } : null}
    >
      <Table colCount={5} rowCount={rows.length + 1} data-testid="websites-table">
        <Thead>
          <Tr>
            <Th>
              <Typography variant="sigma" textColor="neutral600">
                {t('websites.column.name', 'Name')}
              </Typography>
            </Th>
            <Th>
              <Typography variant="sigma" textColor="neutral600">
                {t('websites.column.slug', 'Slug')}
              </Typography>
            </Th>
            <Th>
              <Typography variant="sigma" textColor="neutral600">
                {t('websites.column.publications', 'Publications')}
              </Typography>
            </Th>
            <Th>
              <Typography variant="sigma" textColor="neutral600">
                {t('websites.column.updated', 'Updated')}
              </Typography>
            </Th>
            <Th>
              <VisuallyHidden>{t('websites.column.actions', 'Actions')}</VisuallyHidden>
            </Th>
          </Tr>
        </Thead>
        <Tbody>
          {rows.map((website) => (
            <Tr key={website.id}>
              <Td>
                <Link tag={NavLink} to={String(website.id)}>
                  {website.name}
                </Link>
              </Td>
              <Td>
                <Typography textColor="neutral800">{website.slug}</Typography>
              </Td>
              <Td>
                <Typography textColor="neutral800">
                  {website.publications.length === 0
                    ? t('websites.publications.none', 'None')
                    : website.publications.map((publication) => `/${publication.collection}`).join(', ')}
                </Typography>
              </Td>
              <Td>
                <DateText value={website.updatedAt} />
              </Td>
              <Td>
                <Flex gap={1} justifyContent="end">
                  <IconButton
                    label={
                      canUpdate
                        ? t('websites.edit', 'Edit {name}', { name: website.name })
                        : t('websites.view', 'View {name}', { name: website.name })
                    }
                    variant="ghost"
                    onClick={() => navigate(String(website.id))}
                  >
                    <Pencil />
                  </IconButton>
                  {canDelete && (
                    <ConfirmButton
                      iconOnly
                      label={t('websites.delete.label', 'Delete {name}', { name: website.name })}
                      icon={<Trash />}
                      title={t('website.delete.title', 'Delete {name}?', { name: website.name })}
                      body={t('website.delete.body', 'Its resources disappear from the API at once, and keys lose their grants on them.')}
                      confirmLabel={t('website.delete.confirm', 'Delete the website')}
                      confirmVariant="danger"
                      onConfirm={() => remove(website)}
                    />
                  )}
                </Flex>
              </Td>
            </Tr>
          ))}
        </Tbody>
      </Table>
    </ListLayout>
  );
};
