package io.nvmf4j.target;

import io.nvmf4j.protocol.Status;
import io.nvmf4j.protocol.StatusCode;
import io.nvmf4j.protocol.SubmissionQueueEntry;
import io.nvmf4j.protocol.admin.IdentifyCommand;
import io.nvmf4j.protocol.admin.IdentifyNamespaceIndependent;

/**
 * The Identify CNS values of the command-set era (NVMe Base 2.0, 5.17.2) that Linux nvmet answers beside 00h-03h:
 * 05h, the I/O Command Set specific Identify Namespace (nvme_execute_identify_ns_nvm(): zeroes for the NVM command
 * set, whose fields nvmet does not use), and 08h, the I/O Command Set Independent Identify Namespace
 * (nvmet_execute_id_cs_indep()). Both need an active namespace (nvmet_req_find_ns()). Zoned namespaces (CSI 2) are
 * not supported: an Invalid Field at CNS, as nvmet built without zoned block devices.
 */
final class CommandSetIdentify {

    static final int CNS_IO_COMMAND_SET_NAMESPACE = 0x05;
    static final int CNS_NAMESPACE_INDEPENDENT = 0x08;

    private CommandSetIdentify() {
    }

    /** CNS 05h. */
    static Status ioCommandSetNamespace(Request req, IdentifyCommand cmd) {
        if (cmd.csi() != IdentifyHandlers.CSI_NVM) {
            req.errorLocation(IdentifyCommand.OFFSET_CNS);
            return StatusCode.INVALID_FIELD.withDnr();
        }
        SubsystemNamespace ns = activeNamespace(req, cmd);
        if (ns == null) {
            return namespaceStatus(req, cmd);
        }
        req.data().fill((byte) 0); // struct nvme_id_ns_nvm: no storage tag, no protection information
        return Status.SUCCESS;
    }

    /** CNS 08h: shared (NMIC), ready (NSTAT), write protected when set (NSATTR). */
    static Status namespaceIndependent(Request req, IdentifyCommand cmd) {
        SubsystemNamespace ns = activeNamespace(req, cmd);
        if (ns == null) {
            return namespaceStatus(req, cmd);
        }
        req.data().fill((byte) 0);
        IdentifyNamespaceIndependent.wrap(req.data())
                .nmic(IdentifyHandlers.NMIC_SHARED)
                .nstat(IdentifyNamespaceIndependent.NSTAT_READY)
                .nsattr(ns.isWriteProtected() ? IdentifyHandlers.NSATTR_WRITE_PROTECTED : 0);
        return Status.SUCCESS;
    }

    private static SubsystemNamespace activeNamespace(Request req, IdentifyCommand cmd) {
        return req.queue().controller().subsystem().activeNamespace(cmd.nsid());
    }

    private static Status namespaceStatus(Request req, IdentifyCommand cmd) {
        req.errorLocation(SubmissionQueueEntry.OFFSET_NSID);
        return req.queue().controller().subsystem().hasNamespace(cmd.nsid())
                ? StatusCode.INTERNAL_PATH_ERROR.status()
                : StatusCode.INVALID_NS.withDnr();
    }
}
