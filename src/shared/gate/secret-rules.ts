import type { GateRule, Level } from './levels.js';

/**
 * The rules of `mcp-rewind redact --scan`: a secret left in a cassette. Most come from secretlint's recommended
 * preset (@secretlint/secretlint-rule-preset-recommend, a maintained pattern set: its rule
 * `@secretlint/secretlint-rule-<name>` is ours `secret.<name>`); three are ours, for what the preset does not cover
 * and a recording holds: a JSON Web Token, an `Authorization: Bearer` value, and a credential-named field (a header
 * or a JSON key such as `authorization`, `cookie`, `x-api-key`, `client_secret`) whose value is not `[REDACTED]`.
 * Every one is an error. Pure data.
 */

const PRESET = {
  aws: 'an AWS access key or secret access key',
  gcp: 'a Google Cloud service-account private key',
  privatekey: 'a private key (PEM: RSA, EC, OpenSSH, …)',
  npm: 'an npm access token',
  basicauth: 'a user:password in a URL',
  slack: 'a Slack token or webhook URL',
  sendgrid: 'a SendGrid API key',
  shopify: 'a Shopify access token',
  github: 'a GitHub token (ghp_, gho_, ghs_, github_pat_, …)',
  openai: 'an OpenAI API key',
  anthropic: 'an Anthropic API key',
  linear: 'a Linear API key',
  '1password': 'a 1Password service-account token',
  'database-connection-string': 'a database connection string with a password',
} as const;

/** secretlint's id of a preset rule → ours (the preset's filter-comments rule reports nothing and has none). */
export const PRESET_RULE_PREFIX = '@secretlint/secretlint-rule-';
export const PRESET_RULES = Object.keys(PRESET).map((name) => `${PRESET_RULE_PREFIX}${name}`);
export const secretRuleOf = (secretlintId: string): string => `secret.${secretlintId.slice(PRESET_RULE_PREFIX.length)}`;

export const OWN_SECRET_RULES = {
  'secret.jwt': 'a JSON Web Token (three base64url parts, the first a JSON header)',
  'secret.bearer': 'an `Authorization: Bearer` credential in a text',
  'secret.credential-field': 'a credential-named header or field whose value is not "[REDACTED]"',
} as const;

export type OwnSecretRuleId = keyof typeof OWN_SECRET_RULES;

const LEVEL: Level = 'error';

export const secretGateRules = (): GateRule[] => [
  ...Object.entries(PRESET).map(([name, title]) => ({
    id: `secret.${name}`,
    level: LEVEL,
    title,
    command: 'redact --scan' as const,
  })),
  ...Object.entries(OWN_SECRET_RULES).map(([id, title]) => ({
    id,
    level: LEVEL,
    title,
    command: 'redact --scan' as const,
  })),
];
