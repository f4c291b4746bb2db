extension Fix {
    /// Takes every member `later` states, keeping this fix's values where `later` has none.
    mutating func merge(_ later: Fix) {
        latitude = later.latitude
        longitude = later.longitude
        mode = later.mode
        altitude = later.altitude ?? altitude
        speed = later.speed ?? speed
        course = later.course ?? course
        quality = later.quality ?? quality
        satellitesUsed = later.satellitesUsed ?? satellitesUsed
        pdop = later.pdop ?? pdop
        hdop = later.hdop ?? hdop
        vdop = later.vdop ?? vdop
        latitudeError = later.latitudeError ?? latitudeError
        longitudeError = later.longitudeError ?? longitudeError
        altitudeError = later.altitudeError ?? altitudeError
        horizontalAccuracy = later.horizontalAccuracy ?? horizontalAccuracy
        verticalAccuracy = later.verticalAccuracy ?? verticalAccuracy
        speedAccuracy = later.speedAccuracy ?? speedAccuracy
        courseAccuracy = later.courseAccuracy ?? courseAccuracy
        if mode == .twoD {
            altitude = nil
            verticalAccuracy = nil
        }
    }
}
