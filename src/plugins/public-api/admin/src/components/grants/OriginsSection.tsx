/**
 * Browser origins the key accepts requests from (`https://shop.example`, `https://*.example`). The
 * server validates every rule; its messages appear under the rule they concern. A new row takes the
 * focus, so typing goes where it is meant to; a removed row hands the focus on (to the row now in its
 * place, the one before it, or "Add an origin"), never to the page; a row left blank is named, never
 * dropped unseen.
 */
import { useEffect, useRef } from 'react';
import { Button, Field, Flex, IconButton, TextInput, Typography } from '@strapi/design-system';
import { Plus, Trash } from '@strapi/icons';
import { useT } from '../../hooks/useT';
import type { FieldErrors } from '../../utils/errors';
import { setOrigins, type Draft } from '../../utils/grants';

type Props = {
  draft: Draft;
  onChange: (draft: Draft) => void;
  /** Errors by the origin's index in the draft. */
  errors: FieldErrors;
  /** Rows left blank when saving was tried. */
  blankRows: number[];
  disabled?: boolean;
};

export const OriginsSection = ({ draft, onChange, errors, blankRows, disabled }: Props) => {
  const t = useT();
  const origins = draft.origins;
  const inputs = useRef<(HTMLInputElement | null)[]>([]);
  const addButton = useRef<HTMLButtonElement | null>(null);
  /** Where the focus goes once the rows have changed: a row's input (added, or next to a removed one), or the add button. */
  const focusRow = useRef<number | 'add' | null>(null);

  useEffect(() => {
    const target = focusRow.current;
    if (target === null) return;
    focusRow.current = null;
    if (target === 'add') addButton.current?.focus();
    else inputs.current[target]?.focus();
  }, [origins.length]);

  const update = (index: number, value: string) =>
    onChange(
      setOrigins(
        draft,
        origins.map((origin, i) => (i === index ? value : origin)),
      ),
    );
  const remove = (index: number) => {
    // The row's remove button goes with it: the focus moves to the row now in its place, else the one before.
    const left = origins.length - 1;
    focusRow.current = left === 0 ? 'add' : Math.min(index, left - 1);
    onChange(
      setOrigins(
        draft,
        origins.filter((_, i) => i !== index),
      ),
    );
  };
  const add = () => {
    focusRow.current = origins.length;
    onChange(setOrigins(draft, [...origins, '']));
  };

  return (
    <Flex direction="column" alignItems="stretch" gap={3}>
      <Typography textColor="neutral600">
        {t(
          'origins.help',
          'Browsers may call the API with this key only from these origins. Leave the list empty for servers and apps: then no browser origin is allowed. A wildcard covers subdomains: https://*.example.com.',
        )}
      </Typography>
      {origins.map((origin, index) => (
        <Flex key={index} gap={2} alignItems="start">
          <Field.Root
            name={`origins.${index}`}
            error={
              errors[String(index)] ?? (blankRows.includes(index) ? t('origins.blank', 'Type an origin, or remove this row.') : undefined)
            }
            style={{ flex: 1 }}
          >
            <Field.Label>{t('origins.label', 'Origin {number}', { number: index + 1 })}</Field.Label>
            <TextInput
              ref={(element: HTMLInputElement | null) => {
                inputs.current[index] = element;
              }}
              value={origin}
              placeholder="https://www.example.com"
              disabled={disabled}
              onChange={(e: React.ChangeEvent<HTMLInputElement>) => update(index, e.target.value)}
            />
            <Field.Error />
          </Field.Root>
          <Flex paddingTop={6}>
            <IconButton
              label={t('origins.remove', 'Remove origin {number}', { number: index + 1 })}
              variant="ghost"
              disabled={disabled}
              onClick={() => remove(index)}
            >
              <Trash />
            </IconButton>
          </Flex>
        </Flex>
      ))}
      <Flex>
        <Button ref={addButton} variant="secondary" startIcon={<Plus />} disabled={disabled} onClick={add}>
          {t('origins.add', 'Add an origin')}
        </Button>
      </Flex>
    </Flex>
  );
};
