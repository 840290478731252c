/**
 * Cluster commands. The token and the CA certificate arrive encrypted: the adapter encrypts them (AES-256-GCM under
 * the instance's key) before the command is built, so the core, the log and every event see only ciphertext.
 * Whether the certificate is valid PEM is a fact the adapter read before encrypting it.
 */

export interface SecretInput {
  readonly ciphertext: string;
  /** Whether the value given was blank (the adapter knows; the core sees only ciphertext). */
  readonly blank: boolean;
}

export interface CaCertInput extends SecretInput {
  readonly valid_pem: boolean;
}

export type AuthorizationType = 'rbac' | 'abac' | 'unknown_authorization';

export interface PlatformKubernetesInput {
  readonly api_url: string;
  readonly token: SecretInput;
  readonly ca_cert?: CaCertInput | null;
  readonly namespace?: string | null;
  readonly authorization_type?: AuthorizationType;
}

export interface ClusterFields {
  readonly name: string;
  readonly domain?: string | null;
  readonly enabled?: boolean;
  readonly managed?: boolean;
  readonly environment_scope?: string;
  readonly namespace_per_environment?: boolean;
  readonly management_project_id?: number | null;
}

export type ClusterCommand =
  | ({ readonly type: 'AddCluster'; readonly project_id: number; readonly platform_kubernetes: PlatformKubernetesInput } & ClusterFields)
  | ({
      readonly type: 'UpdateCluster';
      readonly project_id: number;
      readonly cluster_id: number;
      readonly platform_kubernetes?: Partial<Omit<PlatformKubernetesInput, 'authorization_type'>>;
    } & Partial<ClusterFields>)
  | { readonly type: 'RemoveCluster'; readonly project_id: number; readonly cluster_id: number };
