/**
 * The commands the key may run: whatever the server knows (the command registry).
 */
import { Checkbox, Flex, Typography } from '@strapi/design-system';
import type { CommandSummary } from '../../../../shared/contracts/registry';
import { useT } from '../../hooks/useT';
import { setCommand, type Draft } from '../../utils/grants';

type Props = {
  commands: CommandSummary[];
  draft: Draft;
  onChange: (draft: Draft) => void;
  error?: string;
  disabled?: boolean;
};

export const CommandsSection = ({ commands, draft, onChange, error, disabled }: Props) => {
  const t = useT();
  if (commands.length === 0) {
    return (
      <Typography textColor="neutral600">
        {t('commands.none', 'This server has no commands yet. Commands appear here when they are added to the API.')}
      </Typography>
    );
  }
  return (
    <Flex direction="column" alignItems="stretch" gap={3}>
      {commands.map((command) => (
        <Flex key={command.name} direction="column" alignItems="start" gap={1}>
          <Checkbox
            name={`commands.${command.name}`}
            checked={draft.commands.includes(command.name)}
            disabled={disabled}
            onCheckedChange={(checked) => onChange(setCommand(draft, command.name, checked === true))}
          >
            {command.name}
          </Checkbox>
          {command.description && (
            <Typography variant="pi" textColor="neutral600" paddingLeft={6}>
              {command.description}
            </Typography>
          )}
        </Flex>
      ))}
      {error && (
        <Typography variant="pi" textColor="danger600" role="alert">
          {error}
        </Typography>
      )}
    </Flex>
  );
};
