/**
 * The tools the playground's programs can call: async functions of the page, as an app would
 * give its agent. `DECLARATIONS` is what the page shows the person typing (and what an app
 * would put in a model's prompt).
 */
import type { ToolDefinition } from '@cordon/core'

const CITIES: Record<string, { celsius: number; sky: string }> = {
  Oslo: { celsius: 4, sky: 'overcast' },
  Lisbon: { celsius: 19, sky: 'clear' },
  Nairobi: { celsius: 24, sky: 'scattered clouds' },
}

const USERS = [
  { id: 1, name: 'Ada', city: 'Lisbon' },
  { id: 2, name: 'Grace', city: 'Oslo' },
  { id: 3, name: 'Katherine', city: 'Nairobi' },
]

const later = <T>(value: T, ms = 40): Promise<T> => new Promise((resolve) => setTimeout(() => resolve(value), ms))

export const DEMO_TOOLS: Record<string, ToolDefinition> = {
  'weather.today': {
    description: "Today's weather in a city",
    execute: async ({ city }: { city: string }) => {
      const found = CITIES[city]
      if (found === undefined) throw new Error(`no weather for ${city}`)
      return later({ city, ...found })
    },
  },
  'users.list': {
    description: 'Every user',
    execute: async () => later(USERS),
  },
}

export const DECLARATIONS = `declare namespace weather {
  /** Today's weather in a city (Oslo, Lisbon, Nairobi). */
  function today(input: { city: string }): Promise<{ city: string; celsius: number; sky: string }>
}
declare namespace users {
  /** Every user. */
  function list(): Promise<{ id: number; name: string; city: string }[]>
}`

export const EXAMPLE_PROGRAM = `const people = await users.list()
const report: string[] = []
for (const person of people) {
  const today = await weather.today({ city: person.city })
  console.log(\`\${person.name}: \${today.celsius} °C in \${today.city}\`)
  report.push(\`\${person.name} (\${today.sky})\`)
}
report.join(', ')`
