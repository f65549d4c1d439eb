/**
 * A settings list page of the plugin (API keys, websites): loading and error states, the title and the
 * header with the create button (for an admin who may create), an optional note, then the list, or the
 * empty state with the create button again.
 */
import type { ReactNode } from 'react';
import { EmptyStateLayout, LinkButton } from '@strapi/design-system';
import { Plus } from '@strapi/icons';
import { EmptyDocuments } from '@strapi/icons/symbols';
import { Layouts, Page } from '@strapi/strapi/admin';
import { NavLink } from 'react-router-dom';
import type { Loaded } from '../api/useAdminQuery';

type Props<T> = {
  loaded: Loaded<T[]>;
  text: { pageTitle: string; title: string; subtitle: string; empty: string };
  /** The create page's link (`create`); null for an admin who may not create. */
  create: { label: string; testId?: string } | null;
  note?: ReactNode;
  /** The list, when there is at least one record. */
  children: ReactNode;
};

export const ListLayout = <T,>({ loaded, text, create, note, children }: Props<T>) => {
  const createButton = (variant: 'default' | 'secondary') =>
    create && (
      <LinkButton tag={NavLink} to="create" startIcon={<Plus />} size="S" variant={variant} data-testid={create.testId}>
        {create.label}
      </LinkButton>
    );
  if (loaded.isLoading && !loaded.data) return <Page.Loading />;
  if (!loaded.data) return <Page.Error />;
  return (
    <Page.Main>
      <Page.Title>{text.pageTitle}</Page.Title>
      <Layouts.Header title={text.title} subtitle={text.subtitle} primaryAction={createButton('default')} />
      <Layouts.Content>
        {note}
        {loaded.data.length === 0 ? (
          <EmptyStateLayout icon={<EmptyDocuments width="16rem" />} content={text.empty} action={createButton('secondary')} />
        ) : (
          children
        )}
      </Layouts.Content>
    </Page.Main>
  );
};
