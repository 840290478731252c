import { describeSpecs } from './spec.js';
import { settingEffectSpecs, settingSpecs } from './settings.js';

describeSpecs('settings decider', settingSpecs);
describeSpecs('deciders under the settings', settingEffectSpecs);
