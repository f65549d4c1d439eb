/**
 * The content manager's editor for `tags` fields: a list of short strings, added with Enter or a
 * comma and removed one by one, stored as a JSON array of strings.
 */
import { useState, type KeyboardEvent } from 'react';
import { useIntl } from 'react-intl';
import { useField } from '@strapi/strapi/admin';
import { Field, Flex, Tag, TextInput } from '@strapi/design-system';
import { Cross } from '@strapi/icons';
import { getTranslation } from '../pluginId';

type TagsInputProps = {
  name: string;
  label: string;
  hint?: string;
  required?: boolean;
  disabled?: boolean;
};

const MAX_TAG_LENGTH = 64;

const asTags = (value: unknown): string[] => (Array.isArray(value) ? value.filter((item): item is string => typeof item === 'string') : []);

const TagsInput = ({ name, label, hint, required, disabled }: TagsInputProps) => {
  const { formatMessage } = useIntl();
  const field = useField<unknown>(name);
  const tags = asTags(field.value);
  const [draft, setDraft] = useState('');

  const commit = () => {
    const additions = draft
      .split(',')
      .map((tag) => tag.trim().slice(0, MAX_TAG_LENGTH))
      .filter((tag) => tag !== '' && !tags.includes(tag));
    if (additions.length) field.onChange(name, [...tags, ...new Set(additions)]);
    setDraft('');
  };

  const onKeyDown = (event: KeyboardEvent<HTMLInputElement>) => {
    if (event.key === 'Enter' || event.key === ',') {
      event.preventDefault();
      commit();
    } else if (event.key === 'Backspace' && draft === '' && tags.length > 0) {
      field.onChange(name, tags.slice(0, -1));
    }
  };

  const remove = (tag: string) =>
    field.onChange(
      name,
      tags.filter((item) => item !== tag),
    );

  return (
    <Field.Root name={name} hint={hint} error={field.error} required={required}>
      <Field.Label>{label}</Field.Label>
      <TextInput
        value={draft}
        disabled={disabled}
        placeholder={formatMessage({ id: getTranslation('tags.placeholder'), defaultMessage: 'Type a tag and press Enter' })}
        onChange={(event: React.ChangeEvent<HTMLInputElement>) => setDraft(event.target.value)}
        onKeyDown={onKeyDown}
        onBlur={commit}
      />
      {tags.length > 0 && (
        <Flex gap={2} paddingTop={2} wrap="wrap">
          {tags.map((tag) => (
            <Tag
              key={tag}
              icon={<Cross aria-hidden />}
              disabled={disabled}
              onClick={() => remove(tag)}
              label={formatMessage({ id: getTranslation('tags.remove'), defaultMessage: 'Remove tag {tag}' }, { tag })}
            >
              {tag}
            </Tag>
          ))}
        </Flex>
      )}
      <Field.Hint />
      <Field.Error />
    </Field.Root>
  );
};

export default TagsInput;
