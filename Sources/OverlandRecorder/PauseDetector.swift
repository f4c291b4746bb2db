/// "Pause automatically" for a GPS stream: after `pauseAfter` seconds within
/// `stillRadius` metres of one place, points stop; they resume when a fix lands farther
/// than `resumeRadius` from where the pause began (the "resume with geofence" radius, or
/// 50 m when that is off: unlike a phone, the receiver keeps reporting while paused, so
/// there is no need to wait for a region exit to wake up).
struct PauseDetector: Sendable {
    var pauseAfter: Int64 = 300
    var stillRadius = 25.0
    var resumeRadius = 50.0

    enum Change: Equatable {
        case paused(at: Int64)
        case resumed(at: Int64)
    }

    private(set) var isPaused = false
    private var stillCentre: (latitude: Double, longitude: Double)?
    private var stillSince: Int64 = 0

    /// Feeds one fix; says whether this fix paused or resumed the updates.
    mutating func observe(time: Int64, latitude: Double, longitude: Double) -> Change? {
        guard let centre = stillCentre else {
            stillCentre = (latitude, longitude)
            stillSince = time
            return nil
        }
        let distance = Geodesy.distance(latitude1: centre.latitude, longitude1: centre.longitude,
                                         latitude2: latitude, longitude2: longitude)
        if isPaused {
            guard distance > resumeRadius else { return nil }
            isPaused = false
            stillCentre = (latitude, longitude)
            stillSince = time
            return .resumed(at: time)
        }
        if distance > stillRadius {
            stillCentre = (latitude, longitude)
            stillSince = time
            return nil
        }
        if time - stillSince >= pauseAfter {
            isPaused = true
            return .paused(at: time)
        }
        return nil
    }
}

/// Visit tracking for a GPS stream: a stay of `minimumStay` seconds within `radius`
/// metres of the place where it began is a visit, announced on arrival (no departure yet)
/// and again on departure, as the phone's visit monitoring reports them. A fix faster
/// than walking pace is travel: it ends a stay and starts none.
struct VisitDetector: Sendable {
    var radius = 50.0
    var minimumStay: Int64 = 180

    struct Visit: Equatable {
        var latitude: Double
        var longitude: Double
        var arrival: Int64
        var departure: Int64?
    }

    private var centre: (latitude: Double, longitude: Double)?
    private var arrival: Int64 = 0
    private var lastInside: Int64 = 0
    private var announced = false

    var travelSpeed = MotionClassifier.walkingBelow

    mutating func observe(time: Int64, latitude: Double, longitude: Double, speed: Double?) -> Visit? {
        if let speed, speed >= travelSpeed {
            defer {
                centre = nil
                announced = false
            }
            guard announced, let centre else { return nil }
            return Visit(latitude: centre.latitude, longitude: centre.longitude, arrival: arrival, departure: lastInside)
        }
        if let centre, Geodesy.distance(latitude1: centre.latitude, longitude1: centre.longitude,
                                         latitude2: latitude, longitude2: longitude) <= radius {
            lastInside = time
            guard !announced, time - arrival >= minimumStay else { return nil }
            announced = true
            return Visit(latitude: centre.latitude, longitude: centre.longitude, arrival: arrival, departure: nil)
        }
        defer {
            centre = (latitude, longitude)
            arrival = time
            lastInside = time
            announced = false
        }
        guard announced, let centre else { return nil }
        return Visit(latitude: centre.latitude, longitude: centre.longitude, arrival: arrival, departure: lastInside)
    }
}
