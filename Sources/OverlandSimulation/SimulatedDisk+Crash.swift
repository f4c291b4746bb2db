/// What a power cut leaves: every pending change kept or dropped, independently.
extension SimulatedDisk {
    /// How a crash image chooses among the pending changes.
    enum Cut: CaseIterable {
        /// Every pending change lost: only what was fsynced survives.
        case durableOnly
        /// Every pending change kept (what `kill -9` leaves).
        case everything
        /// Each dirty page, each file's length and each pending entry chosen at random.
        case mixed
    }

    /// A crash image of `state`: a new disk whose every file and directory holds, durably,
    /// one of the states the power cut allows.
    static func crashImage(of state: State, ignores: Ignores, tracing: Bool, using random: inout SeededRandom) -> SimulatedDisk {
        let cut = Cut.allCases.randomElement(using: &random)!
        let entries = crashEntries(state, cut: cut, using: &random)
        var inodes: [UInt64: Inode] = [:]
        // From the root: an inode survives when a surviving entry names it.
        var queue: [UInt64] = [root]
        var seen: Set<UInt64> = [root]
        while let number = queue.popLast() {
            guard let old = state.inodes[number] else { continue }
            let new = Inode(number: number, isDirectory: old.isDirectory)
            new.modified = old.modified
            if old.isDirectory {
                new.entries = (entries[number] ?? [:]).filter { state.inodes[$0.value] != nil }
                new.durableEntries = new.entries
                for child in new.entries.values.sorted() where seen.insert(child).inserted { queue.append(child) }
            } else {
                new.data = crashData(old, cut: cut, using: &random)
                new.durableData = new.data
            }
            inodes[number] = new
        }
        return SimulatedDisk(ignores: ignores, tracing: tracing, inodes: inodes, nextInode: state.nextInode, clock: state.clock)
    }

    /// Every directory's entries after the cut: the durable ones, with each pending change
    /// (a create, a rename as a whole, an unlink) applied or not, in the order made.
    static func crashEntries(_ state: State, cut: Cut, using random: inout SeededRandom) -> [UInt64: [String: UInt64]] {
        var entries: [UInt64: [String: UInt64]] = [:]
        for (number, inode) in state.inodes where inode.isDirectory { entries[number] = inode.durableEntries }
        for group in state.pendingLinks {
            let keep: Bool
            switch cut {
            case .durableOnly: keep = false
            case .everything: keep = true
            case .mixed: keep = Bool.random(using: &random)
            }
            guard keep else { continue }
            for link in group { entries[link.directory]?[link.name] = link.target }
        }
        return entries
    }

    /// A file's bytes after the cut: its length the durable one, the current one or (grown)
    /// a page boundary between; each page that differs from its durable bytes is the old
    /// page or the new one; bytes that neither had are zeros.
    static func crashData(_ file: Inode, cut: Cut, using random: inout SeededRandom) -> [UInt8] {
        let old = file.durableData, new = file.data
        if old == new { return old }
        switch cut {
        case .durableOnly: return old
        case .everything: return new
        case .mixed: break
        }
        var length = Bool.random(using: &random) ? old.count : new.count
        if new.count > old.count + pageSize, random.chance(0.5) {
            let boundaries = (old.count / pageSize + 1)...(new.count / pageSize)
            length = min(new.count, boundaries.randomElement(using: &random)! * pageSize)
        }
        var result = [UInt8](repeating: 0, count: length)
        var page = 0
        while page * pageSize < length {
            let range = (page * pageSize)..<min(length, (page + 1) * pageSize)
            // A page kept new past a truncation shows the old bytes (the truncation did not
            // reach the disk); a page dropped past the old end shows zeros.
            let fromNew = Bool.random(using: &random)
            for index in range {
                if fromNew && index < new.count {
                    result[index] = new[index]
                } else if index < old.count {
                    result[index] = old[index]
                }
            }
            page += 1
        }
        return result
    }
}
