/** io-ts building blocks shared by the modules' event codecs. */
import * as t from 'io-ts';

export const nullable = <C extends t.Mixed>(codec: C) => t.union([codec, t.null]);

export const visibility = t.keyof({ private: null, internal: null, public: null });
