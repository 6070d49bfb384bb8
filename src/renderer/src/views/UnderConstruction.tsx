import type { JSX } from 'react'

const CLI_USAGE = 'npx mcp-rewind --url <upstream> --cache ./cache'

export function UnderConstruction(): JSX.Element {
  return (
    <section className="notice">
      <h2>This view is under construction</h2>
      <p>Until it lands, record and replay MCP traffic from the Timeline view or the command line:</p>
      <pre>
        <code>{CLI_USAGE}</code>
      </pre>
    </section>
  )
}
