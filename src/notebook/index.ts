/** What notebooks call as `cckit.notebook.*`: the setup of a notebook, and helpers over the run layout. */
export * from './runs';
export {
  setup,
  statusLine,
  notebookSeeds,
  recipeWithOverrides,
  describeRun,
  resultRowLines,
  type NotebookSetup,
  type SetupOptions,
  type RecipeOverrides,
  type PresetName,
} from './setup';
