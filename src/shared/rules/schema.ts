import { z } from 'zod';
import { ConditionSchema } from '../conditions.js';
import { MODES } from '../modes.js';

/**
 * Rule *definitions*: plain JSON, validated here, interpreted by src/main/engine/rules. Field names follow MiMCP's
 * REST API (snake_case), so a MiMCP session config works unchanged.
 */

/** An MCP content block (text, image, audio, resource_link, resource); unknown fields pass through. */
export const ContentBlockSchema = z.looseObject({ type: z.string().min(1) });

/** A fixed tool response: `text` (one text block) or `content` (MCP content blocks). */
export const OverrideResponseSchema = z
  .strictObject({
    text: z.string().optional(),
    content: z.array(ContentBlockSchema).optional(),
    structured_content: z.record(z.string(), z.unknown()).optional(),
    is_error: z.boolean().optional(),
    /** simulated latency, seconds */
    delay_s: z.number().min(0).max(600).optional(),
  })
  .refine((r) => !(r.text !== undefined && r.content !== undefined), {
    message: 'give either text or content, not both',
  });

export const BehaviorSchema = z.discriminatedUnion('type', [
  z.strictObject({ type: z.literal('relay') }),
  z.strictObject({ type: z.literal('override'), response: OverrideResponseSchema }),
  z.strictObject({ type: z.literal('inject'), template: z.string() }),
]);

/** A JSON Schema object for a tool's input (MCP requires type "object"). */
export const InputSchemaSchema = z.looseObject({ type: z.literal('object') });

export const ToolRuleSchema = z.strictObject({
  name: z.string().min(1).max(1024),
  /** null or absent: keep the upstream value */
  description: z.string().nullable().optional(),
  input_schema: InputSchemaSchema.nullable().optional(),
  behavior: BehaviorSchema.nullable().optional(),
  /** beyond MiMCP: the tool is left out of tools/list and a call to it is refused as unknown (one tool hidden) */
  hidden: z.boolean().optional(),
  /** beyond MiMCP: the behavior applies only to calls that match (docs/rules.md "Conditions"); other calls are relayed */
  condition: ConditionSchema.optional(),
});

const uniqueNames = (tools: Array<{ name: string }>, ctx: z.RefinementCtx): void => {
  const seen = new Set<string>();
  tools.forEach((t, i) => {
    if (seen.has(t.name))
      ctx.addIssue({ code: 'custom', message: `duplicate tool name "${t.name}"`, path: [i, 'name'] });
    seen.add(t.name);
  });
};

export const ToolRulesSchema = z.array(ToolRuleSchema).superRefine(uniqueNames);

export const OverlaySchema = z.strictObject({
  tools: ToolRulesSchema.default([]),
  /** true: upstream tools absent from `tools` are exposed unchanged (relay); false: hidden */
  passthrough: z.boolean().default(true),
});

/** The CLI's --rules file: an overlay plus optional instructions (`$schema`: an editor hint, ignored). */
export const RulesFileSchema = z.strictObject({
  $schema: z.string().optional(),
  instructions: z.string().optional(),
  tools: ToolRulesSchema.default([]),
  passthrough: z.boolean().default(true),
});

export const UpstreamConfigSchema = z
  .strictObject({
    /** Streamable HTTP or legacy HTTP+SSE (detected) */
    url: z.url({ protocol: /^https?$/ }).optional(),
    /** beyond MiMCP: a stdio server, one child per agent session (words split like sh, no shell) */
    command: z.string().min(1).max(4096).optional(),
    headers: z.record(z.string(), z.string()).default({}),
    /**
     * beyond MiMCP: the proxy signs in to a url that answers 401 (default); false: never (its 401 reaches the agent);
     * a client registered with the upstream's authorization server instead of dynamic registration
     */
    oauth: z
      .union([
        z.literal(false),
        z.strictObject({
          client_id: z.string().min(1).max(1000),
          client_secret: z.string().min(1).max(4000).optional(),
        }),
      ])
      .optional(),
  })
  .refine((u) => (u.url === undefined) !== (u.command === undefined), {
    message: 'give either url or command',
    path: ['url'],
  });

export const CreateSessionSchema = z.strictObject({
  name: z.string().max(200).optional(),
  instructions: z.string().optional(),
  upstream: UpstreamConfigSchema.nullable().optional(),
  tools: ToolRulesSchema.default([]),
  passthrough: z.boolean().default(true),
  /** beyond MiMCP: how the session uses its cassette (default proxy-only with an upstream, replay without) */
  mode: z.enum(MODES).optional(),
  /** beyond MiMCP: cassette folder for record / replay / hybrid */
  cassette: z.string().min(1).optional(),
});

export const PutToolsSchema = z.strictObject({
  tools: ToolRulesSchema.default([]),
  passthrough: z.boolean().default(true),
  /** absent: keep the upstream; null: detach it; an object: switch to it */
  upstream: UpstreamConfigSchema.nullable().optional(),
});

export type OverrideResponse = z.infer<typeof OverrideResponseSchema>;
export type Behavior = z.infer<typeof BehaviorSchema>;
export type ToolRule = z.infer<typeof ToolRuleSchema>;
export type Overlay = z.infer<typeof OverlaySchema>;
/** A rules file as checked (defaults filled in): what the CLI, the app and the library hand the engine. */
export type RulesFile = z.output<typeof RulesFileSchema>;
/** A rules file as written (defaults may be left out): what the library's `rules` option takes. */
export type RulesFileInput = z.input<typeof RulesFileSchema>;

/** A checked rules file as the engine takes it: the overlay and the instructions; none: an empty pass-through. */
export function engineRules(rules: RulesFile | undefined): { overlay: Overlay; instructions?: string } {
  if (!rules) return { overlay: { tools: [], passthrough: true } };
  return { overlay: { tools: rules.tools, passthrough: rules.passthrough }, instructions: rules.instructions };
}
export type UpstreamConfig = z.infer<typeof UpstreamConfigSchema>;
export type CreateSession = z.infer<typeof CreateSessionSchema>;
export type PutTools = z.infer<typeof PutToolsSchema>;

/** A tool as the agent sees it after the overlay, with what happens when it is called. */
export interface MergedTool {
  name: string;
  description?: string;
  inputSchema: Record<string, unknown>;
  behavior: Behavior;
  /** where the tool comes from */
  origin: 'upstream' | 'overlay' | 'synthetic';
  /** the upstream's own tool definition (other fields such as outputSchema, annotations, title are kept) */
  upstream?: Record<string, unknown>;
}

/** One line of a zod error, naming the bad field: `tools.0.behavior.type: Invalid input`. */
export function describeZodError(error: z.ZodError): string {
  return error.issues.map((i) => `${i.path.length ? i.path.join('.') : '(body)'}: ${i.message}`).join('; ');
}
