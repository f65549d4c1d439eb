/**
 * A button whose action runs only after a confirmation dialog (revoke, regenerate, delete).
 *
 * When the dialog closes, Radix puts the focus back on the button that opened it. An action that removes
 * that button (revoke) or shows something to act on next (regenerate: the new key) says where the focus
 * goes instead with `focusAfterClose`: asked as the dialog closes, after the action's changes are on
 * the page; when it gives no element, Radix's own return to the button applies (cancelled, or refused).
 */
import { useState, type ReactElement, type ReactNode } from 'react';
import { Button, Dialog, IconButton, type ButtonProps } from '@strapi/design-system';
import { WarningCircle } from '@strapi/icons';
import { useT } from '../hooks/useT';

type ConfirmButtonProps = {
  label: string;
  title: string;
  body: ReactNode;
  confirmLabel: string;
  onConfirm: () => Promise<void> | void;
  icon?: ReactElement;
  variant?: ButtonProps['variant'];
  confirmVariant?: ButtonProps['variant'];
  disabled?: boolean;
  testId?: string;
  /** Only the icon, with the label as its accessible name (in table rows). */
  iconOnly?: boolean;
  /** Where the focus goes as the dialog closes; nothing: back to this button (Radix's default). */
  focusAfterClose?: () => HTMLElement | null | undefined;
};

export const ConfirmButton = ({
  label,
  title,
  body,
  confirmLabel,
  onConfirm,
  icon,
  variant = 'tertiary',
  confirmVariant = 'danger-light',
  disabled,
  testId,
  iconOnly = false,
  focusAfterClose,
}: ConfirmButtonProps) => {
  const t = useT();
  const [open, setOpen] = useState(false);
  const [busy, setBusy] = useState(false);

  const confirm = async () => {
    setBusy(true);
    try {
      await onConfirm();
    } finally {
      setBusy(false);
      setOpen(false);
    }
  };

  // Called once the dialog is gone, also when the action removed this button with it (revoke).
  const onCloseAutoFocus = (event: Event) => {
    const target = focusAfterClose?.();
    if (!target) return;
    event.preventDefault();
    target.focus();
  };

  // Strapi's ConfirmDialog, written out: it does not pass onCloseAutoFocus to the dialog's content.
  return (
    <Dialog.Root open={open} onOpenChange={setOpen}>
      <Dialog.Trigger>
        {iconOnly && icon ? (
          <IconButton label={label} variant="ghost" disabled={disabled} data-testid={testId}>
            {icon}
          </IconButton>
        ) : (
          <Button startIcon={icon} variant={variant} size="S" disabled={disabled} data-testid={testId}>
            {label}
          </Button>
        )}
      </Dialog.Trigger>
      <Dialog.Content onCloseAutoFocus={onCloseAutoFocus}>
        <Dialog.Header>{title}</Dialog.Header>
        <Dialog.Body icon={<WarningCircle width="24px" height="24px" fill="danger600" />}>{body}</Dialog.Body>
        <Dialog.Footer>
          <Dialog.Cancel>
            <Button fullWidth variant="tertiary">
              {t('common.cancel', 'Cancel')}
            </Button>
          </Dialog.Cancel>
          <Button fullWidth variant={confirmVariant} startIcon={icon} loading={busy} onClick={confirm}>
            {confirmLabel}
          </Button>
        </Dialog.Footer>
      </Dialog.Content>
    </Dialog.Root>
  );
};
