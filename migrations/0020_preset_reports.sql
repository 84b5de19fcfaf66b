-- What a preset measured of its inputs and decided as it planned (src/presets/recipes/recipe.ts, PlanReport):
-- a loudness normalisation's measures before and after, and whether its gain was linear.
ALTER TABLE jobs ADD COLUMN preset_report_json TEXT;
