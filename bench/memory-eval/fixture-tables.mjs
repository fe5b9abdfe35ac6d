// The word lists make-fixture.mjs draws its conversations from: the people, places, jobs, pets,
// trips, hobbies and the rest the facts are made of, and the greetings, acknowledgements and small
// talk around them. Data only; the order of every list is part of the seeded output (the generator
// picks by index), so reordering or adding an item changes fixture.json.

export const people = ["Maya", "Tomas", "Priya", "Jonas", "Aiko", "Daniel", "Leila", "Marco", "Sofia", "Kwame", "Ingrid", "Rafael", "Nadia", "Owen"];
export const siblingNames = ["Lena", "Clara", "Ruth", "Hana", "Elif", "Marta", "Greta", "Noor", "Paul", "Felix", "Arjun", "Theo", "Bram", "Kofi"];
export const partnerNames = ["Tom", "Erik", "Samir", "Jules", "Diego", "Anton", "Ravi", "Luca", "Mira", "Anna", "Zoe", "Iris"];
export const friendNames = ["Jess", "Ben", "Carla", "Yusuf", "Mei", "Oscar", "Tariq", "Elena", "Hugo", "Ada", "Nils", "Rosa"];
export const cities = ["Lisbon", "Berlin", "Toronto", "Melbourne", "Dublin", "Seattle", "Barcelona", "Vienna", "Denver", "Copenhagen", "Edinburgh", "Montreal", "Porto", "Austin", "Utrecht", "Lyon"];
export const employers = ["Northwind Logistics", "Brightleaf Health", "Atlas Robotics", "Juniper Bank", "Cobalt Studios", "Harbor Analytics", "Evergreen Schools", "Pinecone Labs", "Summit Insurance", "Redwood Media", "Quarry Games", "Lumen Energy"];
export const roles = ["data analyst", "nurse", "product designer", "backend engineer", "project manager", "teacher", "accountant", "marketing lead", "UX researcher", "sales manager"];
export const pets = [
  { species: "dog", breed: "beagle", young: "puppy" },
  { species: "dog", breed: "border collie", young: "puppy" },
  { species: "cat", breed: "tabby", young: "kitten" },
  { species: "cat", breed: "Maine Coon", young: "kitten" },
  { species: "dog", breed: "greyhound", young: "rescue" },
  { species: "rabbit", breed: "lop-eared rabbit", young: "bunny" },
];
export const petNames = ["Biscuit", "Pepper", "Mochi", "Juniper", "Waffles", "Luna", "Ziggy", "Noodle", "Olive", "Bruno", "Clementine", "Pixel", "Toffee", "Sherlock"];
export const trips = [
  { place: "Kyoto", country: "Japan", thing: "the bamboo forest in Arashiyama" },
  { place: "Reykjavik", country: "Iceland", thing: "a glacier hike" },
  { place: "Marrakesh", country: "Morocco", thing: "the souks in the old medina" },
  { place: "Lima", country: "Peru", thing: "a ceviche cooking class" },
  { place: "Cape Town", country: "South Africa", thing: "the cable car up Table Mountain" },
  { place: "Hanoi", country: "Vietnam", thing: "a street food tour in the Old Quarter" },
  { place: "Oaxaca", country: "Mexico", thing: "a mezcal tasting" },
  { place: "Tromsø", country: "Norway", thing: "chasing the northern lights" },
  { place: "Istanbul", country: "Turkey", thing: "a ferry ride on the Bosphorus" },
  { place: "Queenstown", country: "New Zealand", thing: "a bungee jump" },
];
export const hobbies = [
  { name: "pottery", start: "signed up for a pottery class on Tuesday evenings", detail: "made my first bowl on the wheel, it's wonky but I love it", gift: "ceramics" },
  { name: "rock climbing", start: "started bouldering at the climbing gym near the station", detail: "finally sent a V3 problem at the climbing gym", gift: "outdoors" },
  { name: "watercolour painting", start: "bought a set of watercolours and started painting on Sunday mornings", detail: "painted the view from the balcony in watercolour, pretty happy with the sky", gift: "art" },
  { name: "sourdough baking", start: "got a sourdough starter from a neighbour and have been baking bread", detail: "my sourdough finally has a proper open crumb", gift: "kitchen" },
  { name: "birdwatching", start: "joined a birdwatching group that meets at the lake on Saturdays", detail: "spotted a kingfisher at the lake this morning with the birdwatching group", gift: "outdoors" },
  { name: "chess", start: "joined a chess club that meets at the library on Thursdays", detail: "won my first rated game at the chess club", gift: "games" },
  { name: "salsa dancing", start: "started salsa dancing lessons with a friend", detail: "we danced salsa at a social on Friday and I didn't step on anyone", gift: "music" },
  { name: "gardening", start: "started growing tomatoes and herbs in the allotment", detail: "the allotment gave us so many tomatoes we're making sauce", gift: "garden" },
  { name: "knitting", start: "picked up knitting from YouTube videos", detail: "knitted a whole scarf, the stripes are a bit uneven", gift: "crafts" },
  { name: "trail running", start: "started trail running in the hills on weekends", detail: "did a 15 km trail run with 600 m of climbing", gift: "outdoors" },
];
export const bands = ["Arctic Monkeys", "Florence and the Machine", "Khruangbin", "Radiohead", "Little Simz", "Fleetwood Mac tribute band", "Bon Iver", "Tame Impala", "Hozier", "The National"];
export const genres = { "Arctic Monkeys": "indie rock", "Florence and the Machine": "indie pop", Khruangbin: "psychedelic funk", Radiohead: "alternative rock", "Little Simz": "hip hop", "Fleetwood Mac tribute band": "classic rock", "Bon Iver": "indie folk", "Tame Impala": "psychedelic rock", Hozier: "soul-tinged folk rock", "The National": "indie rock" };
export const cars = ["Toyota Yaris", "Volkswagen Golf", "Honda Civic", "Kia Niro", "Skoda Octavia", "Renault Zoe", "Mazda 3", "Subaru Outback"];
export const languages = ["Portuguese", "Japanese", "Spanish", "German", "Italian", "Korean", "Dutch", "French"];
export const foods = ["ramen", "Thai green curry", "tacos al pastor", "mushroom risotto", "shakshuka", "pho", "paneer tikka", "paella", "dumplings", "falafel wraps"];
export const races = [
  { name: "half marathon", distance: "21 km" },
  { name: "10K", distance: "10 km" },
  { name: "marathon", distance: "42 km" },
  { name: "5K park run", distance: "5 km" },
];
export const months = ["January", "February", "March", "April", "May", "June", "July", "August", "September", "October", "November", "December"];

export const greetings = [
  ["Hi there!", "Hello! How has your week been?"],
  ["Hey, I'm back.", "Welcome back! What's new?"],
  ["Good evening.", "Good evening! How are things?"],
  ["Morning! Got a minute?", "Always. What's on your mind?"],
  ["Hey, long time no talk.", "It has been a while! How have you been?"],
  ["Hi! Quick chat before dinner?", "Of course. How was your day?"],
];
export const acknowledgements = [
  "That's great to hear!",
  "Oh wow, tell me more.",
  "That sounds like a lot, how do you feel about it?",
  "Nice! I'll remember that.",
  "Congratulations, that's exciting.",
  "That sounds lovely.",
  "I'm glad you told me.",
  "Interesting! How did it go?",
];
/** Small talk: shares everyday words with the facts (work, moved, car, class, dog, trip) but holds none. */
export const smallTalk = [
  "The weather has been miserable all week, rain every single day.",
  "Work was pretty hectic today, back-to-back meetings until six.",
  "I'm thinking about getting a new phone, mine keeps freezing.",
  "We watched a really slow documentary last night and I fell asleep.",
  "The neighbour's dog barked at the mail carrier for twenty minutes this morning.",
  "Traffic was terrible on the way to work, I'll try the bus tomorrow.",
  "I finally cleaned out the garage this weekend.",
  "My coffee machine broke, so I'm surviving on instant coffee.",
  "I've been sleeping badly lately, maybe too much screen time.",
  "We tried a new brunch place, the pancakes were huge.",
  "Our building's elevator has been out of order for days.",
  "I read half a novel on the train and then left it on the seat.",
  "Someone at work moved my desk plant and it's driving me mad.",
  "The trip to the supermarket took forever, everyone was stocking up.",
  "I had a dentist appointment, no cavities at least.",
  "I'm trying to drink more water, I've got an app that nags me now.",
  "The class my colleague teaches got cancelled because of the strike.",
  "We had friends over for board games and stayed up way too late.",
  "Car alarms went off all night on our street.",
  "My laptop battery barely lasts two hours anymore.",
  "I cooked a big pot of soup for the week.",
  "The gym was packed, I gave up and went for a walk instead.",
  "I spent the whole Saturday doing laundry and paperwork.",
  "There's a new bakery at the corner, the croissants are excellent.",
  "I've started going to bed earlier, feels good so far.",
  "My friend sent me a funny video of a cat falling off a sofa.",
  "The train was delayed again, forty minutes this time.",
  "I'm binge-watching a detective series, it's very addictive.",
  "Spring cleaning day, the flat looks so much bigger now.",
  "I forgot my umbrella and got completely soaked.",
];
