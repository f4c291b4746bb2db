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
    static func crashImage(of state: State, ignores: Ignores, tracing: Bool, fatTrees: [String], cut chosen: Cut? = nil,
                           using random: inout SeededRandom) -> SimulatedDisk {
        let cut = chosen ?? Cut.allCases.randomElement(using: &random)!
        let entries = crashEntries(state, cut: cut, using: &random)
        let fat = fatTrees.reduce(into: Set<UInt64>()) { $0.formUnion(Self.inodes(under: $1, in: state)) }
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
                new.data = crashData(old, cut: cut, stale: fat.contains(number), using: &random)
                new.durableData = new.data
            }
            inodes[number] = new
        }
        return SimulatedDisk(ignores: ignores, tracing: tracing, fatTrees: fatTrees, inodes: inodes, nextInode: state.nextInode,
                             clock: state.clock)
    }

    /// Every inode under the directory `tree` (by its current or its durable entries).
    static func inodes(under tree: String, in state: State) -> Set<UInt64> {
        guard let top = resolve(tree, in: state) else { return [] }
        var inside: Set<UInt64> = [top.number]
        var queue = [top.number]
        while let number = queue.popLast() {
            guard let inode = state.inodes[number], inode.isDirectory else { continue }
            for child in Set(inode.entries.values).union(inode.durableEntries.values).sorted() where inside.insert(child).inserted {
                queue.append(child)
            }
        }
        return inside
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
    static func crashData(_ file: Inode, cut: Cut, stale: Bool, using random: inout SeededRandom) -> [UInt8] {
        var result = chosenData(file, cut: cut, stale: stale, using: &random)
        // A page a failed fsync dropped is clean in the cache: never written back.
        for page in file.dropped.keys.sorted() where page * pageSize < result.count {
            for index in (page * pageSize)..<min(result.count, (page + 1) * pageSize) {
                result[index] = index < file.durableData.count ? file.durableData[index] : 0
            }
        }
        return result
    }

    static func chosenData(_ file: Inode, cut: Cut, stale: Bool, using random: inout SeededRandom) -> [UInt8] {
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
        // FAT allocates clusters before it writes them: what a dropped page shows past the
        // old end is whatever the cluster held (here a pattern no journal writes), not zeros.
        var result = stale ? (0..<length).map { UInt8(truncatingIfNeeded: $0 &* 131 &+ 0x5A) } : [UInt8](repeating: 0, count: length)
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

/// A stick pulled while the host runs (`Fault.Kind.vanish`), then plugged in again.
extension SimulatedDisk {
    /// Plugs the tree that vanished back in: what it holds is what the device had made
    /// durable when it went, every pending change under it kept or dropped as a power cut
    /// of that device alone would (`crashImage`); the rest of the disk is untouched.
    public func replug(using random: inout SeededRandom) {
        state.withLock { state in
            guard let tree = state.vanished else { return }
            state.vanished = nil
            let cut = Cut.allCases.randomElement(using: &random)!
            let inside = Self.inodes(under: tree, in: state)
            let stale = fatTrees.contains { Self.isUnder(tree, $0) || Self.isUnder($0, tree) }
            // The entries: durable ones, each pending change under the tree applied or not.
            var rest: [[Link]] = []
            var entries: [UInt64: [String: UInt64]] = [:]
            for number in inside where state.inodes[number]?.isDirectory == true { entries[number] = state.inodes[number]!.durableEntries }
            for group in state.pendingLinks {
                guard group.allSatisfy({ inside.contains($0.directory) }) else {
                    rest.append(group)
                    continue
                }
                let keep = cut == .everything || (cut == .mixed && Bool.random(using: &random))
                if keep { for link in group { entries[link.directory]?[link.name] = link.target } }
            }
            state.pendingLinks = rest
            for number in inside.sorted() {
                guard let inode = state.inodes[number] else { continue }
                if inode.isDirectory {
                    inode.entries = entries[number] ?? [:]
                    inode.durableEntries = inode.entries
                } else {
                    inode.data = Self.crashData(inode, cut: cut, stale: stale, using: &random)
                    inode.durableData = inode.data
                    inode.dropped = [:]
                }
            }
        }
    }

    /// Whether a tree has vanished and waits to be plugged in again.
    public var hasVanished: Bool { state.withLock { $0.vanished != nil } }
}
