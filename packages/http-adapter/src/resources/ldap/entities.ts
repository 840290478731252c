/** LdapGroupLink (`ee/lib/ee/api/entities/ldap_group_link.rb`). */
import type { LdapLink } from '@forgefold/core';

export const ldapGroupLinkEntity = (link: LdapLink) => ({ cn: link.cn, group_access: link.group_access, provider: link.provider, filter: link.filter });
