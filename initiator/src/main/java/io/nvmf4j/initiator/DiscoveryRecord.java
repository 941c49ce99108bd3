package io.nvmf4j.initiator;

import io.nvmf4j.protocol.log.DiscoveryLogEntry;
import io.nvmf4j.protocol.rdma.RdmaTsas;

/**
 * One Discovery Log Page entry (NVMe-oF 1.1, 5.3, Figure 40), decoded: what {@code nvme discover} prints.
 *
 * @param trtype   transport type (1 rdma, 3 tcp ...)
 * @param adrfam   address family (1 ipv4, 2 ipv6 ...)
 * @param subtype  1 referral to another discovery service, 2 NVM subsystem, 3 this discovery controller
 * @param treq     transport requirements
 * @param portId   port ID
 * @param cntlid   controller ID (FFFFh: dynamic)
 * @param asqsz    admin max SQ size
 * @param trsvcid  transport service ID (the port, for IP)
 * @param subnqn   subsystem NQN (as found; not validated, so odd targets still list)
 * @param traddr   transport address
 * @param rdmaQpType / rdmaProviderType / rdmaCms  the RDMA TSAS fields
 */
public record DiscoveryRecord(int trtype, int adrfam, int subtype, int treq, int portId, int cntlid, int asqsz,
        String trsvcid, String subnqn, String traddr, int rdmaQpType, int rdmaProviderType, int rdmaCms) {

    static DiscoveryRecord from(DiscoveryLogEntry e) {
        RdmaTsas tsas = e.rdmaTsas();
        return new DiscoveryRecord(e.trtype(), e.adrfam(), e.subtype(), e.treq(), e.portId(), e.cntlid(), e.asqsz(),
                e.trsvcid().strip(), e.subnqn().strip(), e.traddr().strip(), tsas.qptype(), tsas.prtype(), tsas.cms());
    }

    /** True for an entry that points at another discovery service (subtype 1). */
    public boolean isReferral() {
        return subtype == DiscoveryLogEntry.SUBTYPE_REFERRAL;
    }

    public String trtypeName() {
        return DiscoveryLogEntry.trtypeName(trtype);
    }

    public String adrfamName() {
        return DiscoveryLogEntry.adrfamName(adrfam);
    }

    public String subtypeName() {
        return DiscoveryLogEntry.subtypeName(subtype);
    }
}
