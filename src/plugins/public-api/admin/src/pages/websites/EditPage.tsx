/**
 * Create or edit a website: name, slug and publications, validated by the server field by field. A
 * message goes as soon as the value it was about is changed; an unknown website shows the server's
 * own message.
 */
import { useState } from 'react';
import { Button, Field, Flex, Grid, TextInput, Typography } from '@strapi/design-system';
import { Check, Trash } from '@strapi/icons';
import { BackButton, Layouts, Page, useNotification } from '@strapi/strapi/admin';
import { useNavigate, useParams } from 'react-router-dom';
import type { ContentTypeSummary } from '../../../../shared/contracts/registry';
import type { AdminWebsite, Publication } from '../../../../shared/contracts/websites';
import { ConfirmButton } from '../../components/ConfirmButton';
import { PublicationsEditor } from '../../components/websites/PublicationsEditor';
import { useAdminApi } from '../../api/client';
import { useAdminQuery } from '../../api/useAdminQuery';
import { usePermissions } from '../../hooks/usePermissions';
import { useT } from '../../hooks/useT';
import { errorsUnder, messageOf, type FieldErrors } from '../../utils/errors';
import { useRefusal } from '../../hooks/useRefusal';
import { Section } from '../keys/KeyFormSections';

export const EditPage = () => {
  const t = useT();
  const { id } = useParams();
  const website = useAdminQuery('getWebsite', id ? { params: { id } } : null, { select: (res) => res.data });
  const contentTypes = useAdminQuery('getContentTypes', {}, { select: (res) => res.data });
  if ((website.isLoading && !website.data) || (contentTypes.isLoading && !contentTypes.data)) return <Page.Loading />;
  // The server's own word (No website '9999'.) rather than a generic "something went wrong".
  if (id && !website.data) return <Page.Error content={messageOf(website.error, t('common.error', 'Something went wrong.'))} />;
  if (!contentTypes.data) return <Page.Error content={messageOf(contentTypes.error, t('common.error', 'Something went wrong.'))} />;
  return (
    <Page.Main>
      <Page.Title>
        {website.data
          ? t('website.edit.pageTitle', 'Website {name}', { name: website.data.name })
          : t('website.create.pageTitle', 'Add a website')}
      </Page.Title>
      <WebsiteForm key={website.data?.id ?? 'new'} website={website.data} contentTypes={contentTypes.data} onSaved={website.set} />
    </Page.Main>
  );
};

type FormProps = {
  website: AdminWebsite | undefined;
  contentTypes: ContentTypeSummary[];
  onSaved: (website: AdminWebsite) => void;
};

const WebsiteForm = ({ website, contentTypes, onSaved }: FormProps) => {
  const t = useT();
  const api = useAdminApi();
  const navigate = useNavigate();
  const { toggleNotification } = useNotification();
  const { canCreate, canUpdate, canDelete } = usePermissions();
  const refuse = useRefusal();
  const [name, setName] = useState(website?.name ?? '');
  const [slug, setSlug] = useState(website?.slug ?? '');
  const [publications, setPublications] = useState<Publication[]>(website?.publications ?? []);
  const [errors, setErrors] = useState<FieldErrors>({});
  const [saving, setSaving] = useState(false);
  const editable = website ? canUpdate : canCreate;
  /** Drops the messages about values that have just changed (and the form's own message): they are stale. */
  const clearErrors = (stale: (path: string) => boolean) =>
    setErrors((current) => {
      const kept = Object.entries(current).filter(([path]) => path !== '' && !stale(path));
      return kept.length === Object.keys(current).length ? current : Object.fromEntries(kept);
    });
  const changeName = (next: string) => {
    setName(next);
    // With no slug typed, the slug is made from the name: a message about it is stale too.
    clearErrors((path) => path === 'name' || (slug.trim() === '' && path === 'slug'));
  };
  const changeSlug = (next: string) => {
    setSlug(next);
    clearErrors((path) => path === 'slug');
  };
  const changePublications = (next: Publication[]) => {
    setPublications(next);
    if (next.length !== publications.length) {
      // Added or removed: the messages' numbers no longer name the same publications.
      clearErrors((path) => path === 'publications' || path.startsWith('publications.'));
      return;
    }
    const changed = new Set<string>();
    next.forEach((publication, index) => {
      const before = publications[index] as Publication;
      const fields = (['contentType', 'collection', 'mode', 'name'] as const).filter(
        (field) => (publication[field] ?? '') !== (before[field] ?? ''),
      );
      for (const field of fields) changed.add(`publications.${index}.${field}`);
      // Whether a mode is allowed depends on the content type.
      if (fields.includes('contentType')) changed.add(`publications.${index}.mode`);
      if (fields.length) changed.add(`publications.${index}`);
    });
    // A publication's collection slug is compared with the others' ("already used by publication 1").
    const collectionChanged = [...changed].some((path) => path.endsWith('.collection'));
    clearErrors(
      (path) => path === 'publications' || changed.has(path) || (collectionChanged && /^publications\.\d+\.collection$/.test(path)),
    );
  };
  // An existing website saves only a change (the server would answer the same website back).
  const isDirty =
    !website ||
    name !== website.name ||
    (slug.trim() !== '' && slug.trim() !== website.slug) ||
    JSON.stringify(publications) !== JSON.stringify(website.publications);

  const submit = async (event: React.FormEvent) => {
    event.preventDefault();
    setSaving(true);
    const body = {
      name,
      ...(slug.trim() ? { slug: slug.trim() } : {}),
      publications: publications.map(({ name: display, ...publication }) => ({
        ...publication,
        ...(display?.trim() ? { name: display.trim() } : {}),
      })),
    };
    try {
      if (website) {
        const saved = await api.updateWebsite({ params: { id: website.id }, body });
        onSaved(saved.data);
        setName(saved.data.name);
        setSlug(saved.data.slug);
        setPublications(saved.data.publications);
        setErrors({});
        toggleNotification({ type: 'success', message: t('website.saved', 'Saved. The API serves the change on the next request.') });
      } else {
        const created = await api.createWebsite({ body });
        toggleNotification({ type: 'success', message: t('website.created', 'The website {name} is added.', { name: created.data.name }) });
        navigate(`../${created.data.id}`, { replace: true });
      }
    } catch (error) {
      refuse(error, setErrors);
    } finally {
      setSaving(false);
    }
  };

  const remove = async () => {
    if (!website) return;
    try {
      await api.deleteWebsite({ params: { id: website.id } });
      toggleNotification({ type: 'success', message: t('websites.deleted', 'The website {name} is deleted.', { name: website.name }) });
      navigate('..', { replace: true });
    } catch (error) {
      refuse(error);
    }
  };

  return (
    <form onSubmit={submit} noValidate>
      <Layouts.Header
        navigationAction={<BackButton fallback=".." />}
        title={website ? website.name : t('website.create.title', 'Add a website')}
        subtitle={
          website ? `/api/v2/cms/${website.slug}` : t('website.create.subtitle', 'Name the website, then choose what it publishes.')
        }
        primaryAction={
          <Flex gap={2}>
            {website && canDelete && (
              <ConfirmButton
                label={t('website.delete', 'Delete')}
                icon={<Trash />}
                variant="danger-light"
                title={t('website.delete.title', 'Delete {name}?', { name: website.name })}
                body={t('website.delete.body', 'Its resources disappear from the API at once, and keys lose their grants on them.')}
                confirmLabel={t('website.delete.confirm', 'Delete the website')}
                confirmVariant="danger"
                onConfirm={remove}
              />
            )}
            {editable && (
              <Button type="submit" startIcon={<Check />} loading={saving} disabled={!isDirty} size="S">
                {website ? t('website.save', 'Save') : t('website.create.save', 'Add the website')}
              </Button>
            )}
          </Flex>
        }
      />
      <Layouts.Content>
        <Flex direction="column" alignItems="stretch" gap={6}>
          {errors[''] && (
            <Typography textColor="danger600" role="alert">
              {errors['']}
            </Typography>
          )}
          <Section title={t('website.section.details', 'Website')}>
            <Grid.Root gap={5}>
              <Grid.Item col={6} s={12} direction="column" alignItems="stretch">
                <Field.Root name="name" required error={errors.name} width="100%">
                  <Field.Label>{t('website.name', 'Name')}</Field.Label>
                  <TextInput
                    value={name}
                    disabled={!editable}
                    onChange={(e: React.ChangeEvent<HTMLInputElement>) => changeName(e.target.value)}
                  />
                  <Field.Error />
                </Field.Root>
              </Grid.Item>
              <Grid.Item col={6} s={12} direction="column" alignItems="stretch">
                <Field.Root
                  name="slug"
                  error={errors.slug}
                  hint={
                    website
                      ? t('website.slug.hint.edit', 'Changing it changes the URLs; keys keep their grants.')
                      : t('website.slug.hint', 'Made from the name when left empty.')
                  }
                  width="100%"
                >
                  <Field.Label>{t('website.slug', 'Slug')}</Field.Label>
                  <TextInput
                    value={slug}
                    disabled={!editable}
                    onChange={(e: React.ChangeEvent<HTMLInputElement>) => changeSlug(e.target.value)}
                  />
                  <Field.Hint />
                  <Field.Error />
                </Field.Root>
              </Grid.Item>
            </Grid.Root>
          </Section>
          <Section
            title={t('website.section.publications', 'Publications')}
            description={t('website.section.publications.description', 'Each publication becomes a resource keys can be granted.')}
            testId="section-publications"
          >
            <PublicationsEditor
              value={publications}
              onChange={changePublications}
              contentTypes={contentTypes}
              errors={errorsUnder(errors, 'publications')}
              disabled={!editable}
            />
          </Section>
        </Flex>
      </Layouts.Content>
    </form>
  );
};
