package io.nvmf4j.target;

import io.nvmf4j.protocol.Status;
import io.nvmf4j.protocol.StatusCode;
import io.nvmf4j.protocol.SubmissionQueueEntry;
import io.nvmf4j.protocol.io.DatasetManagementCommand;
import io.nvmf4j.protocol.io.DsmRange;
import io.nvmf4j.protocol.io.IoOpcode;
import io.nvmf4j.protocol.io.LbaRangeCommand;
import io.nvmf4j.protocol.io.WriteZeroesCommand;
import io.nvmf4j.target.backend.BackendException;
import io.nvmf4j.target.backend.BackendIo;
import io.nvmf4j.target.backend.BackendOp;
import io.nvmf4j.target.backend.NamespaceBackend;
import java.lang.System.Logger.Level;
import java.util.List;

/**
 * NVM I/O commands (Linux {@code io-cmd-file.c} / {@code io-cmd-bdev.c}, written once over
 * {@link NamespaceBackend}): Read, Write (FUA honoured, and every write made stable while the host has the
 * volatile write cache switched off), Flush, Write Zeroes and Dataset Management with the Deallocate attribute.
 *
 * <p>Statuses: an unknown or disabled namespace is Invalid Namespace (nvmet_req_find_ns()); a range past the
 * end of the namespace is LBA Out of Range with the SLBA in the error log; a backend failure maps like nvmet's
 * errno_to_nvme_status(): no space → Capacity Exceeded, unsupported → Invalid Opcode, anything else → Internal
 * Error, all with DNR.
 *
 * <p>File and block-device namespaces on a transport with a poll thread run asynchronously through
 * {@link BackendCommands}: the checks are the same, the command completes when the backend does.
 */
final class IoCommands {

    private static final System.Logger LOG = System.getLogger(IoCommands.class.getName());

    private static final int READ = IoOpcode.READ.code();
    private static final int WRITE = IoOpcode.WRITE.code();
    private static final int FLUSH = IoOpcode.FLUSH.code();
    private static final int WRITE_ZEROES = IoOpcode.WRITE_ZEROES.code();
    private static final int DSM = IoOpcode.DATASET_MANAGEMENT.code();
    private static final Status RESERVATION_CONFLICT = StatusCode.RESERVATION_CONFLICT.withDnr();
    // the handlers of the data path, created once
    private static final CommandHandler READ_HANDLER = IoCommands::read;
    private static final CommandHandler WRITE_HANDLER = IoCommands::write;
    private static final CommandHandler FLUSH_HANDLER = IoCommands::flush;

    private IoCommands() {
    }

    /** True when [slba, slba + blocks) lies inside a namespace of {@code count} blocks, without wrapping. */
    private static boolean fits(long slba, int blocks, long count) {
        long end = slba + blocks;
        return Long.compareUnsigned(slba, count) < 0 && Long.compareUnsigned(end, slba) > 0
                && Long.compareUnsigned(end, count) <= 0;
    }

    /** nvmet_parse_io_cmd(). */
    static Status parse(Request req) {
        SubmissionQueueEntry sqe = req.sqe();
        if (FabricsCommands.isFabrics(sqe)) {
            return FabricsCommands.parseIo(req);
        }
        Status status = AdminCommands.checkControllerStatus(req);
        if (!status.isSuccess()) {
            return status;
        }
        Subsystem subsys = req.queue().controller().subsystem();
        long nsid = sqe.nsid();
        SubsystemNamespace ns = subsys.activeNamespace(nsid);
        if (ns == null) {
            req.errorLocation(SubmissionQueueEntry.OFFSET_NSID);
            // configured but disabled: a path error the host may retry elsewhere, as nvmet
            return subsys.hasNamespace(nsid)
                    ? StatusCode.INTERNAL_PATH_ERROR.status()
                    : StatusCode.INVALID_NS.withDnr();
        }
        req.ns = ns;
        Status ana = AnaHandlers.check(req, ns);
        if (ana != Status.SUCCESS) {
            return ana;
        }
        int opcode = sqe.opcode();
        if (ns.isWriteProtected() && opcode != READ && opcode != FLUSH) {
            // nvmet_io_cmd_check_access(): a write-protected namespace executes Read and Flush only
            req.errorLocation(SubmissionQueueEntry.OFFSET_NSID);
            return StatusCode.NS_WRITE_PROTECTED.status();
        }
        DataDirection direction = DataDirection.ofOpcode(opcode);
        // nvmet_pr_check_cmd_access(): the read and write groups against the reservation (one volatile read when
        // none is held); the reservation commands are checked as they execute
        boolean writeGroup = opcode == WRITE || opcode == FLUSH || opcode == WRITE_ZEROES || opcode == DSM;
        if (writeGroup || opcode == READ) {
            Controller ctrl = req.queue().controller();
            if (!ns.reservation.allows(ctrl.hostIdHigh, ctrl.hostIdLow, writeGroup)) {
                req.errorLocation(SubmissionQueueEntry.OFFSET_OPCODE);
                return RESERVATION_CONFLICT;
            }
        }
        int blockSize = ns.backend().blockSize();
        if (opcode == READ || opcode == WRITE) {
            // decoded in place into the request by protocol's static accessors (NVM Command Set 1.0, Figures
            // 43/72): no command object per I/O
            req.slba = LbaRangeCommand.slba(sqe);
            req.blocks = LbaRangeCommand.nlb(sqe) + 1;
            req.fua = LbaRangeCommand.fua(sqe);
            long length = (long) req.blocks * blockSize;
            // a transfer beyond MDTS is an invalid field (NVMe Base 2.0, 5.15.2.1 MDTS)
            if (length > req.queue().port().maxDataTransferBytes()) {
                req.errorLocation(LbaRangeCommand.OFFSET_NLB);
                return StatusCode.INVALID_FIELD.withDnr();
            }
            req.prepared(opcode == READ ? READ_HANDLER : WRITE_HANDLER, direction, length);
        } else if (opcode == FLUSH) {
            req.prepared(FLUSH_HANDLER, direction, 0);
        } else if (opcode == WRITE_ZEROES) {
            req.prepared(IoCommands::writeZeroes, direction, 0);
        } else if (ReservationHandlers.isReservationCommand(opcode)) {
            return ReservationHandlers.parse(req, opcode, direction);
        } else if (opcode == DSM) {
            req.preparedAtMost(IoCommands::datasetManagement, direction,
                    DatasetManagementCommand.wrap(sqe).dataLength());
        } else {
            return AdminCommands.invalidOpcode(req);
        }
        return Status.SUCCESS;
    }

    /**
     * What Read and Write check before touching the backend (nvmet_bdev_execute_rw() / nvmet_file_execute_rw():
     * nvmet_check_transfer_len(), then the LBA range): the data length is the blocks' and the blocks lie in the
     * namespace. Returns constants only: no allocation on the data path.
     */
    private static Status checkTransfer(Request req, NamespaceBackend backend) {
        Status s = Transfers.checkLength(req, (long) req.blocks * backend.blockSize());
        if (!s.isSuccess()) {
            return s;
        }
        if (!fits(req.slba, req.blocks, backend.blockCount())) {
            return lbaOutOfRange(req, req.slba);
        }
        return Status.SUCCESS;
    }

    private static Status read(Request req) {
        NamespaceBackend backend = req.ns.backend();
        Status s = checkTransfer(req, backend);
        if (!s.isSuccess()) {
            return s;
        }
        BackendIo io = BackendCommands.ioFor(req, req.transferLength());
        if (io != null) {
            return BackendCommands.submit(io, req, BackendOp.READ, req.slba * backend.blockSize(),
                    req.transferLength(), req.data());
        }
        try {
            backend.read(req.slba, req.data());
        } catch (BackendException e) {
            return backendFailure(req, e, req.slba);
        }
        req.ns.statistics().recordRead(req.transferLength());
        return Status.SUCCESS;
    }

    private static Status write(Request req) {
        NamespaceBackend backend = req.ns.backend();
        Status s = checkTransfer(req, backend);
        if (!s.isSuccess()) {
            return s;
        }
        boolean fua = req.fua || !req.queue().controller().volatileWriteCacheEnabled();
        BackendIo io = BackendCommands.ioFor(req, req.transferLength());
        if (io != null) {
            return BackendCommands.submit(io, req, fua ? BackendOp.WRITE_FUA : BackendOp.WRITE,
                    req.slba * backend.blockSize(), req.transferLength(), req.data());
        }
        try {
            backend.write(req.slba, req.data(), fua);
        } catch (BackendException e) {
            return backendFailure(req, e, req.slba);
        }
        req.ns.statistics().recordWrite(req.transferLength());
        return Status.SUCCESS;
    }

    private static Status flush(Request req) {
        Status s = Transfers.checkLength(req, 0);
        if (!s.isSuccess()) {
            return s;
        }
        BackendIo io = BackendCommands.ioFor(req, 0);
        if (io != null) {
            return BackendCommands.submit(io, req, BackendOp.FLUSH, 0, 0, null);
        }
        try {
            req.ns.backend().flush();
        } catch (BackendException e) {
            return backendFailure(req, e, 0);
        }
        return Status.SUCCESS;
    }

    private static Status writeZeroes(Request req) {
        Status s = Transfers.checkLength(req, 0);
        if (!s.isSuccess()) {
            return s;
        }
        WriteZeroesCommand cmd = WriteZeroesCommand.wrap(req.sqe());
        NamespaceBackend backend = req.ns.backend();
        if (!cmd.fitsIn(backend.blockCount())) {
            return lbaOutOfRange(req, cmd.slba());
        }
        int bs = backend.blockSize();
        BackendIo io = BackendCommands.ioFor(req, cmd.blocks() * (long) bs);
        if (io != null) {
            req.slba = cmd.slba();
            req.fua = cmd.fua();
            return BackendCommands.submit(io, req, BackendOp.WRITE_ZEROES, cmd.slba() * bs, cmd.blocks() * ((long) bs),
                    null);
        }
        try {
            backend.writeZeroes(cmd.slba(), cmd.blocks());
            if (cmd.fua()) {
                backend.flush();
            }
        } catch (BackendException e) {
            return backendFailure(req, e, cmd.slba());
        }
        return Status.SUCCESS;
    }

    /**
     * nvmet_file_execute_dsm()/nvmet_bdev_execute_dsm(): only the Deallocate attribute does anything (IDR/IDW
     * hints complete successfully); each range is checked and deallocated in turn, the first bad one ends the
     * command with its SLBA in the error log.
     */
    private static Status datasetManagement(Request req) {
        DatasetManagementCommand cmd = DatasetManagementCommand.wrap(req.sqe());
        Status s = Transfers.checkLengthAtLeast(req, cmd.dataLength());
        if (!s.isSuccess()) {
            return s;
        }
        if (!cmd.deallocate()) {
            return Status.SUCCESS;
        }
        NamespaceBackend backend = req.ns.backend();
        List<DsmRange> ranges = cmd.decodeRanges(req.data());
        long count = backend.blockCount();
        long blocksInAll = 0;
        // every range checked first, so that a bad one fails the command before any is deallocated
        for (DsmRange range : ranges) {
            long slba = range.startingLba();
            long blocks = range.lengthInBlocks();
            if (Long.compareUnsigned(slba, count) > 0 || blocks > count - slba) {
                req.errorLba(slba);
                req.errorLocation(SubmissionQueueEntry.OFFSET_DPTR);
                return StatusCode.LBA_RANGE.withDnr();
            }
            blocksInAll += blocks; // at most 256 ranges of at most 2^32 blocks each: no overflow
        }
        BackendIo io = BackendCommands.ioFor(req, blocksInAll * backend.blockSize());
        if (io != null) {
            return BackendCommands.deallocate(io, req, ranges);
        }
        for (DsmRange range : ranges) {
            try {
                backend.deallocate(range.startingLba(), range.lengthInBlocks());
            } catch (BackendException e) {
                return backendFailure(req, e, range.startingLba());
            }
        }
        return Status.SUCCESS;
    }

    private static Status lbaOutOfRange(Request req, long slba) {
        req.errorLba(slba);
        req.errorLocation(LbaRangeCommand.OFFSET_SLBA);
        return StatusCode.LBA_RANGE.withDnr();
    }

    private static Status backendFailure(Request req, BackendException e, long slba) {
        return backendFailure(req, e.kind(), e.getMessage(), slba);
    }

    /** errno_to_nvme_status() / blk_to_nvme_status(). */
    static Status backendFailure(Request req, BackendException.Kind kind, String message, long slba) {
        LOG.log(Level.WARNING, "{0} on {1} failed: {2}", req.sqe(), req.ns, message);
        req.errorLba(slba);
        return switch (kind) {
            case OUT_OF_RANGE -> {
                req.errorLocation(LbaRangeCommand.OFFSET_SLBA);
                yield StatusCode.LBA_RANGE.withDnr();
            }
            case NO_SPACE -> {
                req.errorLocation(LbaRangeCommand.OFFSET_NLB);
                yield StatusCode.CAP_EXCEEDED.withDnr();
            }
            case NOT_SUPPORTED -> {
                req.errorLocation(SubmissionQueueEntry.OFFSET_OPCODE);
                yield StatusCode.INVALID_OPCODE.withDnr();
            }
            case IO_ERROR -> {
                req.errorLocation(SubmissionQueueEntry.OFFSET_OPCODE);
                yield StatusCode.INTERNAL.withDnr();
            }
        };
    }
}
