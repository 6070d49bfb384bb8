import type { TrafficEvent } from '../../../shared/api.js'

/**
 * The arguments of a held tools/call against the tool's input schema, as its proxy last listed it (tools/list in the
 * timeline). Deliberately small: required properties, and each given property's JSON type and enum — what an edit at
 * a breakpoint typically breaks. Not a full JSON Schema validator (the server stays the judge); it only flags.
 */

type Schema = { type?: string | string[]; properties?: Record<string, Schema>; required?: string[]; enum?: unknown[]; additionalProperties?: boolean | Schema }

/** The tool's inputSchema from the newest tools/list answer of this proxy, if the timeline holds one. */
export function toolInputSchema(exchanges: TrafficEvent[], proxyId: string | undefined, tool: string): Schema | undefined {
  for (let i = exchanges.length - 1; i >= 0; i--) {
    const e = exchanges[i]
    if (e.proxyId !== proxyId || e.method !== 'tools/list' || !e.response || !('result' in e.response)) continue
    const tools = (e.response.result as { tools?: Array<{ name?: string; inputSchema?: Schema }> }).tools
    const found = tools?.find((t) => t.name === tool)
    if (found) return found.inputSchema
  }
  return undefined
}

function jsonType(value: unknown): string {
  if (value === null) return 'null'
  if (Array.isArray(value)) return 'array'
  if (typeof value === 'number') return Number.isInteger(value) ? 'integer' : 'number'
  return typeof value
}

function typeMatches(value: unknown, wanted: string | string[]): boolean {
  const actual = jsonType(value)
  return (Array.isArray(wanted) ? wanted : [wanted]).some((t) => t === actual || (t === 'number' && actual === 'integer'))
}

/** Problems of `args` under `schema`, one line each ("count: expected integer, got string"). */
export function argumentProblems(args: Record<string, unknown>, schema: Schema | Record<string, unknown> | undefined): string[] {
  return problemsUnder(args, schema as Schema | undefined)
}

function problemsUnder(args: Record<string, unknown>, schema: Schema | undefined): string[] {
  if (!schema || typeof schema !== 'object') return []
  const problems: string[] = []
  for (const name of schema.required ?? []) if (!(name in args)) problems.push(`${name}: required by the tool's input schema`)
  for (const [name, value] of Object.entries(args)) {
    const property = schema.properties?.[name]
    if (!property) {
      if (schema.additionalProperties === false) problems.push(`${name}: not a property of the tool's input schema`)
      continue
    }
    if (property.type !== undefined && !typeMatches(value, property.type))
      problems.push(`${name}: expected ${[property.type].flat().join(' or ')}, got ${jsonType(value)}`)
    else if (property.enum && !property.enum.some((v) => JSON.stringify(v) === JSON.stringify(value)))
      problems.push(`${name}: one of ${property.enum.map((v) => JSON.stringify(v)).join(', ')}`)
  }
  return problems
}
