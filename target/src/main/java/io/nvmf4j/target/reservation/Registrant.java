package io.nvmf4j.target.reservation;

/**
 * A registration on a namespace (Linux {@code struct nvmet_pr_registrant}, SPDK {@code spdk_nvmf_registrant}):
 * the host, its reservation key, and the controller it registered through (reported in the Reservation Status
 * CNTLID field, as SPDK does). Immutable: a key change replaces the record.
 */
public record Registrant(HostId host, long key, int cntlid) {

    Registrant withKey(long newKey) {
        return new Registrant(host, newKey, cntlid);
    }
}
